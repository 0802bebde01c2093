import { ProtocolError, type ProtocolErrorOptions } from '@mission/protocol-errors';

/** RFC 6749 §5.2 `unauthorized_client`: the authenticated client may not use this grant type. */
export class UnauthorizedClientError extends ProtocolError {
  constructor(description = 'the client is not allowed to use this grant type', options?: ProtocolErrorOptions) {
    super(400, 'unauthorized_client', description, options);
  }
}

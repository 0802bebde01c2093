import { ProtocolError, type ProtocolErrorOptions } from '@mission/protocol-errors';

/** RFC 6749 §5.2 `unsupported_grant_type`: the server does not support this grant type. */
export class UnsupportedGrantTypeError extends ProtocolError {
  constructor(description = 'unsupported grant_type', options?: ProtocolErrorOptions) {
    super(400, 'unsupported_grant_type', description, options);
  }
}

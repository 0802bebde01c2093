import { ProtocolError, type ProtocolErrorOptions } from '@mission/protocol-errors';

/**
 * RFC 9396 §5 `invalid_authorization_details`: unknown type, missing or malformed fields, or values the
 * client may not ask for.
 */
export class InvalidAuthorizationDetailsError extends ProtocolError {
  constructor(description: string, options?: ProtocolErrorOptions) {
    super(400, 'invalid_authorization_details', description, options);
  }
}

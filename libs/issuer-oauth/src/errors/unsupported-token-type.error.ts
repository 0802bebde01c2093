import { ProtocolError, type ProtocolErrorOptions } from '@mission/protocol-errors';

/** RFC 7009 §2.2.1 `unsupported_token_type`: the server cannot revoke this kind of token (we revoke refresh tokens only). */
export class UnsupportedTokenTypeError extends ProtocolError {
  constructor(description: string, options?: ProtocolErrorOptions) {
    super(400, 'unsupported_token_type', description, options);
  }
}

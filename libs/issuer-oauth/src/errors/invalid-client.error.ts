import { ProtocolError, type ProtocolErrorOptions } from '@mission/protocol-errors';

/**
 * The challenge sent with a failed `private_key_jwt` authentication.
 *
 * RFC 6749 §5.2 makes `WWW-Authenticate` mandatory only when the client authenticated through the
 * `Authorization` header, and then with the scheme it used. `private_key_jwt` (RFC 7523 §2.2) travels in
 * the form body, so there is no HTTP scheme to echo; yet RFC 9110 §15.5.2 requires every 401 to carry
 * a challenge. We therefore name the one method we accept — neither `Bearer` (RFC 6750 is about
 * presenting access tokens to resources, and would invite a client to resend one) nor `Basic` (we accept
 * no client secrets, RFC 6749 §2.3.1). Generic HTTP clients treat the unknown scheme as "cannot answer
 * with HTTP authentication", which is exactly right.
 */
export const INVALID_CLIENT_CHALLENGE = 'private_key_jwt error="invalid_client"';

/** RFC 6749 §5.2 `invalid_client`: client authentication failed. 401 with a challenge (DESIGN 2.1). */
export class InvalidClientError extends ProtocolError {
  constructor(description = 'client authentication failed', options: ProtocolErrorOptions = {}) {
    super(401, 'invalid_client', description, { ...options, headers: { 'WWW-Authenticate': INVALID_CLIENT_CHALLENGE, ...options.headers } });
  }
}

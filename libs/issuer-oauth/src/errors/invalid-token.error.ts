import { ProtocolError, type ProtocolErrorOptions } from '@mission/protocol-errors';
import { ASYMMETRIC_ALGORITHMS } from './dpop-algorithms.js';

/**
 * RFC 6750 §3.1 `invalid_token`: the access token is expired, revoked, malformed or invalid. Every token
 * we issue is DPoP-bound, so the challenge uses the `DPoP` scheme (RFC 9449 §7.1).
 */
export class InvalidTokenError extends ProtocolError {
  constructor(description = 'the access token is not valid', options: ProtocolErrorOptions = {}) {
    super(401, 'invalid_token', description, {
      ...options,
      headers: { 'WWW-Authenticate': `DPoP error="invalid_token", algs="${ASYMMETRIC_ALGORITHMS.join(' ')}"`, ...options.headers },
    });
  }
}

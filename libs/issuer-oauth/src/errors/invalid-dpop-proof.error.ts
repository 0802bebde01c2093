import { ProtocolError, type ProtocolErrorOptions } from '@mission/protocol-errors';
import { ASYMMETRIC_ALGORITHMS } from './dpop-algorithms.js';

/**
 * RFC 9449 §5 `invalid_dpop_proof`: the DPoP proof failed a check of §4.3. 400 with a DPoP challenge
 * listing the accepted algorithms (RFC 9449 §7.1 `algs`).
 */
export class InvalidDpopProofError extends ProtocolError {
  constructor(description: string, options: ProtocolErrorOptions & { readonly algs?: readonly string[] } = {}) {
    const { algs = ASYMMETRIC_ALGORITHMS, ...rest } = options;
    super(400, 'invalid_dpop_proof', description, {
      ...rest,
      headers: { 'WWW-Authenticate': `DPoP error="invalid_dpop_proof", algs="${algs.join(' ')}"`, ...rest.headers },
    });
  }
}

import { ASYMMETRIC_ALGORITHMS } from '../../errors/dpop-algorithms.js';
import { InvalidClientError } from '../../errors/invalid-client.error.js';
import type { ClientAuthenticationContext } from '../context.js';

// RFC 7523 §3 item 9 / RFC 8725 §3.1: the assertion is signed with an allowed asymmetric algorithm (never none, never HS*).
export function assertionAlgorithm({ header }: ClientAuthenticationContext): void {
  if (!(ASYMMETRIC_ALGORITHMS as readonly unknown[]).includes(header!.alg)) {
    throw new InvalidClientError(`client_assertion must be signed with ${ASYMMETRIC_ALGORITHMS.join(', ')}`);
  }
}

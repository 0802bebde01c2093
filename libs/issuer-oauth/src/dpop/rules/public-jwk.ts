import type { JWK } from 'jose';
import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import { isJsonObject } from '../../pipeline/compact-jwt.js';
import type { DpopProofContext } from '../context.js';

/** Members only private or symmetric keys carry (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** The key type each accepted algorithm signs with. */
const KEY_FOR_ALG: Readonly<Record<string, { kty: string; crv: string; members: readonly string[] }>> = {
  ES256: { kty: 'EC', crv: 'P-256', members: ['kty', 'crv', 'x', 'y'] },
  EdDSA: { kty: 'OKP', crv: 'Ed25519', members: ['kty', 'crv', 'x'] },
  Ed25519: { kty: 'OKP', crv: 'Ed25519', members: ['kty', 'crv', 'x'] },
};

// RFC 9449 §4.3 step 7 / §4.2: the jwk header is a public key (no private member) of the alg's type; checked before step 6 so a private key is never imported.
export function publicJwk(context: DpopProofContext): void {
  const { alg } = context.header!;
  const jwk: unknown = context.header!.jwk;
  if (!isJsonObject(jwk)) throw new InvalidDpopProofError('DPoP proof must carry the public key in its jwk header');
  if (PRIVATE_MEMBERS.some((member) => Object.hasOwn(jwk, member))) throw new InvalidDpopProofError('DPoP proof jwk must not contain a private key');
  const expected = KEY_FOR_ALG[alg!]!;
  if (jwk['kty'] !== expected.kty || jwk['crv'] !== expected.crv) throw new InvalidDpopProofError(`DPoP proof jwk must be a ${expected.crv} key for ${alg}`);
  if (!expected.members.every((member) => typeof jwk[member] === 'string')) throw new InvalidDpopProofError('DPoP proof jwk is incomplete');
  context.publicJwk = Object.fromEntries(expected.members.map((member) => [member, jwk[member]])) as JWK;
}

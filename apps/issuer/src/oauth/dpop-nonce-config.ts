import { ConfigError } from '@mission/platform';
import { DpopNonces, type Clock } from '@mission/issuer-oauth';

export const DPOP_NONCES = Symbol('DpopNonces');
const SECRET_TEXT = /^[A-Za-z0-9_-]+$/;

/**
 * RFC 9449 §8 server nonces, opt-in: with `DPOP_NONCE_SECRET` (base64url, ≥ 32 bytes; the same value on
 * every replica, e.g. from a Kubernetes Secret) every DPoP proof must carry a current nonce and responses
 * carry a fresh `DPoP-Nonce`; without it proofs are bounded by their `iat` window and single-use `jti`.
 */
export function dpopNoncesFromEnvironment(env: NodeJS.ProcessEnv, clock: Clock): DpopNonces | undefined {
  const text = env['DPOP_NONCE_SECRET'];
  if (text === undefined || text === '') return undefined;
  if (!SECRET_TEXT.test(text)) throw new ConfigError('DPOP_NONCE_SECRET must be base64url text');
  const secret = Buffer.from(text, 'base64url');
  if (secret.length < 32) throw new ConfigError(`DPOP_NONCE_SECRET must decode to at least 32 bytes, got ${secret.length}`);
  return new DpopNonces(secret, clock);
}

import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { isMissionS256 } from '@mission/ps-domain';

export const RESOURCE_TOKEN_TYPE = 'aa-resource+jwt';
const ALGORITHMS = ['ES256', 'EdDSA'];
const SKEW_SECONDS = 60;
/** Resource Tokens are request artifacts (spec 3 rule 4): short-lived by nature; longer ones are refused. */
const MAX_LIFETIME_SECONDS = 3_600;

/** The verified claims of a Resource Token (DESIGN 3.1): never the token itself. */
export interface VerifiedResourceToken {
  /** The resource (the Auth Token's `aud`). */
  readonly iss: string;
  /** The agent the resource expects to present the Auth Token. */
  readonly agent: string;
  /** RFC 7638 thumbprint of that agent's key. */
  readonly agentJkt: string;
  readonly missionS256: string;
  readonly scope?: string;
  readonly jti: string;
  readonly exp: number;
}

/** One jose key set per key list (reused while the directory keeps the list): jose imports each key once per set. */
const keySets = new WeakMap<object, ReturnType<typeof createLocalJWKSet>>();

function keySetFor(keys: readonly { readonly kty: string; readonly [member: string]: unknown }[]): ReturnType<typeof createLocalJWKSet> {
  let keySet = keySets.get(keys);
  if (keySet === undefined) {
    keySet = createLocalJWKSet({ keys: keys.map((key) => ({ ...key }) as JWK) });
    keySets.set(keys, keySet);
  }
  return keySet;
}

/** Why a Resource Token was refused; the message names the check, never token contents. */
export class ResourceTokenError extends Error {
  override readonly name = 'ResourceTokenError';
}

export interface ResourceKeySource {
  isTrusted(issuer: string): boolean;
  /** The resource's verification keys for a token signed under `kid`. */
  keysFor(issuer: string, kid: string): Promise<readonly { readonly kty: string; readonly [member: string]: unknown }[]>;
}

/**
 * DESIGN 3.1: a Resource Token is `typ: aa-resource+jwt`, ES256 or EdDSA with a `kid`, signed by a
 * configured resource (`iss`), `aud` = this PS, and carries `agent`, `agent_jkt`, `mission_s256`,
 * `jti`, `exp` (and optionally `scope`). `exp` must not have passed; `iat`, when present, must not be
 * in the future beyond a small skew; the lifetime is capped.
 */
export async function verifyResourceToken(jwt: string, resources: ResourceKeySource, audience: string, now: Date): Promise<VerifiedResourceToken> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let unverified: JWTPayload;
  try {
    header = decodeProtectedHeader(jwt);
    unverified = decodeJwt(jwt);
  } catch {
    throw new ResourceTokenError('resource_token is not a JWT');
  }
  if (typeof header.typ !== 'string' || header.typ.toLowerCase() !== RESOURCE_TOKEN_TYPE) throw new ResourceTokenError(`resource_token typ must be ${RESOURCE_TOKEN_TYPE}`);
  if (typeof header.alg !== 'string' || !ALGORITHMS.includes(header.alg)) throw new ResourceTokenError('resource_token alg must be ES256 or EdDSA');
  if (typeof header.kid !== 'string' || header.kid === '') throw new ResourceTokenError('resource_token needs a kid');
  if (typeof unverified.iss !== 'string' || !resources.isTrusted(unverified.iss)) throw new ResourceTokenError('resource_token is not from a configured resource');

  const keys = await resources.keysFor(unverified.iss, header.kid);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(jwt, keySetFor(keys), {
      algorithms: ALGORITHMS,
      issuer: unverified.iss,
      audience,
      currentDate: now,
      requiredClaims: ['exp', 'jti'],
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw new ResourceTokenError('resource_token has expired');
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') throw new ResourceTokenError('resource_token is not for this Person Server');
    throw new ResourceTokenError('resource_token does not verify');
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (typeof payload.exp !== 'number' || payload.exp - nowSeconds > MAX_LIFETIME_SECONDS) throw new ResourceTokenError('resource_token lifetime is too long');
  if (payload.iat !== undefined && (typeof payload.iat !== 'number' || payload.iat > nowSeconds + SKEW_SECONDS)) throw new ResourceTokenError('resource_token is issued in the future');
  const { agent, agent_jkt: agentJkt, mission_s256: missionS256, scope, jti } = payload as Record<string, unknown>;
  if (typeof agent !== 'string' || agent === '' || agent.length > 2048) throw new ResourceTokenError('resource_token needs agent');
  if (typeof agentJkt !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(agentJkt)) throw new ResourceTokenError('resource_token needs agent_jkt');
  if (!isMissionS256(missionS256)) throw new ResourceTokenError('resource_token needs a valid mission_s256');
  if (typeof jti !== 'string' || jti === '' || jti.length > 256) throw new ResourceTokenError('resource_token needs jti');
  if (scope !== undefined && (typeof scope !== 'string' || scope === '' || scope.length > 4096)) throw new ResourceTokenError('resource_token scope must be a string');
  return { iss: unverified.iss, agent, agentJkt, missionS256, ...(scope !== undefined ? { scope } : {}), jti, exp: payload.exp };
}

import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet, type JWK, type JWTPayload } from 'jose';
import { publicSigningJwk, type PublicSigningJwk } from './public-signing-jwk.js';
import { SignatureKeyError } from './signature-key-error.js';

export const AGENT_TOKEN_TYPE = 'aa-agent+jwt';
const AGENT_TOKEN_ALGORITHMS = ['ES256', 'EdDSA'];
const DEFAULT_SKEW_SECONDS = 60;

/**
 * A trusted agent provider as configured (`agent_providers`). Only inline `jwks` are used for now;
 * a provider with `jwks_uri` or discovery only is refused until key fetching (cached, refreshed on an
 * unknown `kid`) is added.
 */
export interface AgentProvider {
  readonly issuer: string;
  readonly jwks?: { readonly keys: readonly { readonly kty: string; readonly [member: string]: unknown }[] };
  readonly jwks_uri?: string;
}

export interface VerifiedAgentToken {
  /** `sub`: the agent identifier. */
  readonly agent: string;
  /** `parent_agent`: present when the agent is a sub-agent. */
  readonly parentAgent?: string;
  /** `cnf.jwk`: the agent's signing key, public members only. */
  readonly cnfJwk: PublicSigningJwk;
  readonly issuer: string;
}

export interface VerifyAgentTokenOptions {
  /** Tolerance for `iat` in the future; default 60 s. `exp` gets no tolerance. */
  readonly skewSeconds?: number;
}

function invalid(message: string): SignatureKeyError {
  return new SignatureKeyError('invalid_agent_token', message);
}

function unverifiedIssuer(jwt: string): string {
  let payload: JWTPayload;
  try {
    payload = decodeJwt(jwt);
  } catch {
    throw invalid('the agent token is not a JWT');
  }
  if (typeof payload.iss !== 'string') throw invalid('the agent token has no iss');
  return payload.iss;
}

function checkHeader(jwt: string): void {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    throw invalid('the agent token header is not readable');
  }
  if (typeof header.typ !== 'string' || header.typ.toLowerCase() !== AGENT_TOKEN_TYPE) throw invalid(`typ must be ${AGENT_TOKEN_TYPE}`);
  if (typeof header.alg !== 'string' || !AGENT_TOKEN_ALGORITHMS.includes(header.alg)) throw invalid('alg must be ES256 or EdDSA');
  if (typeof header.kid !== 'string' || header.kid === '') throw invalid('kid is required');
}

/**
 * One jose key set per provider key list, reused while the list is: jose imports each JWK once per set,
 * and importing (not verifying) was most of the cost of a verification when a set was built per call.
 */
const keySets = new WeakMap<object, ReturnType<typeof createLocalJWKSet>>();

function providerKeySet(provider: AgentProvider): ReturnType<typeof createLocalJWKSet> {
  if (provider.jwks === undefined) {
    throw new SignatureKeyError('unknown_issuer', 'the agent provider has no inline jwks (key discovery is not implemented yet)');
  }
  const list = provider.jwks.keys;
  let keySet = keySets.get(list);
  if (keySet === undefined) {
    const jwks: JSONWebKeySet = { keys: list.map((key) => ({ ...key }) as JWK) };
    keySet = createLocalJWKSet(jwks);
    keySets.set(list, keySet);
  }
  return keySet;
}

async function verifySignature(jwt: string, provider: AgentProvider, now: Date): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(jwt, providerKeySet(provider), {
      algorithms: AGENT_TOKEN_ALGORITHMS,
      issuer: provider.issuer,
      currentDate: now,
      requiredClaims: ['exp', 'iat', 'sub'],
    });
    return payload;
  } catch (error) {
    if (error instanceof SignatureKeyError) throw error;
    if (error instanceof errors.JWTExpired) throw new SignatureKeyError('expired_agent_token', 'the agent token has expired');
    throw invalid('the agent token does not verify');
  }
}

/**
 * Verifies an Agent Token (spec 5.1, DESIGN 3.2): header `typ: aa-agent+jwt`, `alg` ES256 or EdDSA and a
 * `kid`; `iss` a configured provider whose keys verify the signature; `exp` required and not passed; `iat`
 * required and not later than now + skew; `sub` the agent; `cnf.jwk` a public EC P-256 or Ed25519 key;
 * optional `parent_agent` (a sub-agent's parent, never equal to `sub`).
 */
export async function verifyAgentToken(
  jwt: string,
  providers: readonly AgentProvider[],
  clock: { now(): Date },
  options: VerifyAgentTokenOptions = {},
): Promise<VerifiedAgentToken> {
  checkHeader(jwt);
  const issuer = unverifiedIssuer(jwt);
  const provider = providers.find((candidate) => candidate.issuer === issuer);
  if (provider === undefined) throw new SignatureKeyError('unknown_issuer', 'the agent token issuer is not a configured provider');

  const now = clock.now();
  const payload = await verifySignature(jwt, provider, now);

  const skew = options.skewSeconds ?? DEFAULT_SKEW_SECONDS;
  if (typeof payload.exp !== 'number' || typeof payload.iat !== 'number') throw invalid('exp and iat are numeric dates');
  if (payload.iat > Math.floor(now.getTime() / 1000) + skew) {
    throw new SignatureKeyError('expired_agent_token', 'the agent token is issued in the future');
  }
  if (typeof payload.sub !== 'string' || payload.sub === '') throw invalid('sub must name the agent');
  const parentAgent = payload['parent_agent'];
  if (parentAgent !== undefined && (typeof parentAgent !== 'string' || parentAgent === '' || parentAgent === payload.sub)) {
    throw invalid('parent_agent must name another agent');
  }
  const cnf = payload['cnf'];
  if (typeof cnf !== 'object' || cnf === null || !('jwk' in cnf)) throw invalid('cnf.jwk is required');
  let cnfJwk: PublicSigningJwk;
  try {
    cnfJwk = publicSigningJwk((cnf as { jwk: unknown }).jwk, 'cnf.jwk');
  } catch {
    throw invalid('cnf.jwk must be a public EC P-256 or Ed25519 key');
  }
  return { agent: payload.sub, ...(parentAgent !== undefined ? { parentAgent } : {}), cnfJwk, issuer };
}

import { errors, jwtVerify, SignJWT, type JWK } from 'jose';
import { secureRandomBytes, type SigningKeys } from '@mission/platform';
import { isMissionS256 } from '@mission/ps-domain';

export const AUTH_TOKEN_TYPE = 'aa-auth+jwt';

export interface AuthTokenClaims {
  /** The resource the token is for. */
  readonly aud: string;
  /** The holder's public key (the agent or sub-agent that signs its requests to the resource). */
  readonly cnfJwk: JWK;
  readonly agent: string;
  readonly missionS256: string;
  readonly scope?: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}

export interface MintedAuthToken {
  readonly token: string;
  readonly jti: string;
}

/**
 * ADR 0016: an Auth Token's `jti` is `<mission_s256>.<128 random bits, base64url>`, so the revocation endpoint
 * finds the token's mission (`pstokens-<s256>`) from `(iss, jti)` alone with one read and no index. It discloses
 * nothing new: `mission_s256` is a claim of the same token. Holders and resources treat `jti` as opaque.
 */
export function authTokenJti(missionS256: string): string {
  return `${missionS256}.${secureRandomBytes(16).toString('base64url')}`;
}

/** The mission an Auth Token `jti` of this PS names (see {@link authTokenJti}); undefined for any other value. */
export function missionOfAuthTokenJti(jti: string): string | undefined {
  const dot = jti.indexOf('.');
  if (dot < 0 || jti.length !== dot + 23) return undefined;
  const s256 = jti.slice(0, dot);
  return isMissionS256(s256) ? s256 : undefined;
}

/**
 * DESIGN 3.1 Auth Token: `typ: aa-auth+jwt`, ES256 with the PS's `kid`; claims `iss` (this PS), `aud`,
 * `jti` ({@link authTokenJti}), `cnf.jwk`, `iat`, `exp`, `agent`, `mission_s256`, `scope`.
 */
export async function mintAuthToken(keys: SigningKeys, issuer: string, claims: AuthTokenClaims): Promise<MintedAuthToken> {
  const jti = authTokenJti(claims.missionS256);
  const token = await new SignJWT({
    agent: claims.agent,
    mission_s256: claims.missionS256,
    cnf: { jwk: claims.cnfJwk },
    ...(claims.scope !== undefined ? { scope: claims.scope } : {}),
  })
    .setProtectedHeader({ alg: keys.alg, typ: AUTH_TOKEN_TYPE, kid: keys.kid })
    .setIssuer(issuer)
    .setAudience(claims.aud)
    .setJti(jti)
    .setIssuedAt(Math.floor(claims.issuedAt.getTime() / 1000))
    .setExpirationTime(Math.floor(claims.expiresAt.getTime() / 1000))
    .sign(keys.privateKey);
  return { token, jti };
}

/** The verified claims of an Auth Token this PS issued, presented back as `upstream_token`. */
export interface VerifiedUpstreamToken {
  readonly jti: string;
  /** The resource it was issued to: the party now calling onwards. */
  readonly aud: string;
  readonly agent: string;
  readonly missionS256: string;
}

export class UpstreamTokenError extends Error {
  override readonly name = 'UpstreamTokenError';
}

/** An `upstream_token` must be an unexpired Auth Token signed by this PS (DESIGN 3.3 call chains). */
export async function verifyUpstreamToken(jwt: string, keys: SigningKeys, issuer: string, now: Date): Promise<VerifiedUpstreamToken> {
  try {
    const { payload } = await jwtVerify(jwt, keys.publicJwk as unknown as JWK, {
      algorithms: [keys.alg],
      issuer,
      typ: AUTH_TOKEN_TYPE,
      currentDate: now,
      requiredClaims: ['jti', 'aud', 'exp'],
    });
    const { agent, mission_s256: missionS256, aud, jti } = payload as Record<string, unknown>;
    if (typeof agent !== 'string' || !isMissionS256(missionS256) || typeof aud !== 'string' || typeof jti !== 'string') {
      throw new UpstreamTokenError('upstream_token lacks agent, mission_s256, aud or jti');
    }
    return { jti, aud, agent, missionS256 };
  } catch (error) {
    if (error instanceof UpstreamTokenError) throw error;
    if (error instanceof errors.JWTExpired) throw new UpstreamTokenError('upstream_token has expired');
    throw new UpstreamTokenError('upstream_token is not an Auth Token of this Person Server');
  }
}

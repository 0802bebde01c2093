import { SignJWT, type CryptoKey, type JWK } from 'jose';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A registered client's signing key, for hand-made requests (the SDK's clients use oauth4webapi's `PrivateKeyJwt`). */
export interface ClientKey {
  readonly clientId: string;
  readonly privateKey: CryptoKey;
  readonly alg: 'ES256' | 'EdDSA';
  readonly kid?: string;
}

/** RFC 7523 §2.2 `private_key_jwt`: form members authenticating the client to `audience` (the issuer). */
export async function clientAssertion(key: ClientKey, audience: string, now = new Date(), lifetimeSeconds = 60): Promise<Record<string, string>> {
  const iat = Math.floor(now.getTime() / 1000);
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: key.alg, typ: 'JWT', ...(key.kid ? { kid: key.kid } : {}) })
    .setIssuer(key.clientId)
    .setSubject(key.clientId)
    .setAudience(audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + lifetimeSeconds)
    .setJti(globalThis.crypto.randomUUID())
    .sign(key.privateKey);
  return { client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: jwt };
}

export type PrivateJwk = JWK & { d: string };

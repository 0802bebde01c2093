/**
 * Generated identities for a Person Server benchmark run: the agent provider's signing key, one person
 * (a Management Principal, `hwk`) owning the mission-holding agents, those agents and any number of
 * further agents (e.g. probers that own nothing), and the CONFIG_FILE that trusts them. Nothing here
 * comes from config/demo-keys: every run has its own keys.
 */
import { createPrivateKey, randomBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { SignatureAlgorithm } from '@mission/http-signatures';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export const PROVIDER_ISSUER = 'https://agents.bench.example';
/** The resource whose Resource Tokens the revocation section turns into Auth Tokens. */
export const RESOURCE_ISSUER = 'https://resource.bench.example';

/** The local revocation endpoint and the PS `revocation` settings the run uses. */
export interface BenchResource {
  readonly revocationEndpoint: string;
  readonly revocation?: Record<string, number>;
}
const PERSON_ID = 'bench-person';
const TENANT = 'bench';

/** A signing key as the RFC 9421 signer needs it (`privateJwk`) plus its public half. */
export interface BenchKey {
  readonly privateJwk: JWK;
  /** The private key imported once, as a long-lived client holds it (importing a JWK per signature costs more than signing). */
  readonly privateKey: KeyObject;
  readonly publicJwk: JWK;
  readonly alg: SignatureAlgorithm;
}

/** An agent: its identifier, its own signing key, and an Agent Token (`aa-agent+jwt`) binding that key. */
export interface BenchAgent {
  readonly id: string;
  readonly key: BenchKey;
  readonly token: string;
}

/** Rate limits written into the generated config: the schema maxima, so the bench is never throttled by them. */
export const BENCH_RATE_LIMITS = { per_caller_per_minute: 1_000_000, per_source_per_minute: 10_000_000 } as const;

export async function freshKey(kind: 'ES256' | 'Ed25519'): Promise<BenchKey> {
  const { privateKey, publicKey } = await generateKeyPair(kind === 'ES256' ? 'ES256' : 'EdDSA', { extractable: true, ...(kind === 'Ed25519' ? { crv: 'Ed25519' } : {}) });
  const privateJwk = await exportJWK(privateKey);
  return {
    privateJwk,
    privateKey: createPrivateKey({ key: privateJwk as JsonWebKey, format: 'jwk' }),
    publicJwk: await exportJWK(publicKey),
    alg: kind === 'ES256' ? 'ecdsa-p256-sha256' : 'ed25519',
  };
}

function publicMembers(jwk: JWK): JWK {
  const { kty, crv, x, y } = jwk;
  return { kty, crv, x, ...(y !== undefined ? { y } : {}) } as JWK;
}

export class BenchFixture {
  private constructor(
    readonly person: BenchKey,
    private readonly providerJwk: JWK,
    private readonly providerKey: CryptoKey,
    private readonly personJkt: string,
    /** Agents the person owns: they propose, hold and read missions. */
    readonly owners: readonly BenchAgent[],
    private readonly resourceJwk: JWK,
    private readonly resourceKey: CryptoKey,
  ) {}

  /** `owners` agents owned by the generated person, each with an Ed25519 key and an Agent Token valid for `tokenSeconds`. */
  static async create(owners: number, tokenSeconds = 3600): Promise<BenchFixture> {
    const person = await freshKey('Ed25519');
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const providerPublic = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(providerPublic, 'sha256');
    const providerJwk = { ...providerPublic, kid, alg: 'ES256', use: 'sig' };
    const resource = await generateKeyPair('ES256', { extractable: true });
    const resourcePublic = await exportJWK(resource.publicKey);
    const resourceJwk = { ...resourcePublic, kid: await calculateJwkThumbprint(resourcePublic, 'sha256'), alg: 'ES256', use: 'sig' };
    const fixture = new BenchFixture(person, providerJwk, privateKey, await calculateJwkThumbprint(publicMembers(person.publicJwk), 'sha256'), [], resourceJwk, resource.privateKey);
    const agents: BenchAgent[] = [];
    for (let index = 0; index < owners; index++) agents.push(await fixture.agent(`aauth:bench-owner-${index}@agents.bench.example`, tokenSeconds));
    return new BenchFixture(person, providerJwk, privateKey, fixture.personJkt, agents, resourceJwk, resource.privateKey);
  }

  /** A further agent of the trusted provider (owned by nobody unless it is one of {@link owners}). */
  async agent(id: string, tokenSeconds = 3600): Promise<BenchAgent> {
    const key = await freshKey('Ed25519');
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ iss: PROVIDER_ISSUER, sub: id, iat: now - 5, exp: now + tokenSeconds, cnf: { jwk: publicMembers(key.publicJwk) }, jti: randomBytes(12).toString('base64url') })
      .setProtectedHeader({ alg: 'ES256', typ: 'aa-agent+jwt', kid: String(this.providerJwk.kid) })
      .sign(this.providerKey);
    return { id, key, token };
  }

  /**
   * The CONFIG_FILE contents: the person (owning every owner agent), the agent provider with inline JWKS,
   * raised rate limits, and — when given — the bench resource with its local revocation endpoint.
   */
  config(resource?: BenchResource): Record<string, unknown> {
    return {
      principals: [{ id: PERSON_ID, role: 'person', jkt: this.personJkt, tenant: TENANT, agents: this.owners.map((agent) => agent.id) }],
      agent_providers: [{ issuer: PROVIDER_ISSUER, jwks: { keys: [this.providerJwk] } }],
      rate_limits: BENCH_RATE_LIMITS,
      ...(resource !== undefined
        ? {
            resources: [{ issuer: RESOURCE_ISSUER, jwks: { keys: [this.resourceJwk] }, revocation_endpoint: resource.revocationEndpoint }],
            ...(resource.revocation !== undefined ? { revocation: resource.revocation } : {}),
          }
        : {}),
    };
  }

  /** A Resource Token (`aa-resource+jwt`, DESIGN 3.1) of the bench resource for `agent` under `missionS256`. */
  async resourceToken(agent: BenchAgent, missionS256: string, audience: string): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ agent: agent.id, agent_jkt: await calculateJwkThumbprint(publicMembers(agent.key.publicJwk), 'sha256'), mission_s256: missionS256, scope: 'bench.read' })
      .setProtectedHeader({ alg: 'ES256', typ: 'aa-resource+jwt', kid: String(this.resourceJwk.kid) })
      .setIssuer(RESOURCE_ISSUER)
      .setAudience(audience)
      .setJti(randomBytes(12).toString('base64url'))
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(this.resourceKey);
  }
}

/** `Signature-Key` for an agent: its Agent Token. */
export function jwtSignatureKey(agent: BenchAgent): string {
  return `sig=jwt;jwt="${agent.token}"`;
}

/** `Signature-Key` for a Management Principal: the bare public key (`hwk`). */
export function hwkSignatureKey(key: BenchKey): string {
  const { kty, crv, x, y } = key.publicJwk;
  return `sig=hwk;kty="${kty}";crv="${crv}";x="${x}"${y !== undefined ? `;y="${y}"` : ''}`;
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentDigest, signRequest, type KeyInput, type SignatureAlgorithm } from '@mission/http-signatures';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import type { ManagementPrincipal } from '@mission/signature-key';
import { repositoryRoot } from './run-person-server.js';
import { AgentProviderKeys, type ConfiguredAgentProvider } from '../auth/agent-provider-keys.js';
import type { IncomingSignedRequest } from '../auth/authentication-rules.js';
import { RequestAuthenticator } from '../auth/request-authenticator.js';
import { SignatureReplayCache } from '../auth/signature-replay-cache.js';

export const BASE_URL = 'https://ps.example';
export const PROVIDER = 'https://agents.example';
export const AGENT = 'aauth:assistant@agents.example';
export const NOW = new Date('2026-03-01T12:00:00Z');
export const NOW_SECONDS = Math.floor(NOW.getTime() / 1000);

/** A clock the test moves. */
export class TestClock {
  private current: Date;

  constructor(start: Date = NOW) {
    this.current = start;
  }

  now(): Date {
    return this.current;
  }

  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}

/** A private JWK from config/demo-keys (public demo keys, never for production). */
export function demoKey(name: string): JWK {
  return JSON.parse(readFileSync(join(repositoryRoot, 'config/demo-keys', `${name}.private.jwk.json`), 'utf8')) as JWK;
}

interface DemoConfig {
  readonly principals: ManagementPrincipal[];
  readonly agent_providers: ConfiguredAgentProvider[];
}

/** config/person-server.json: the demo principals alice, bob, ops and the agent provider https://agents.example. */
export const demoConfig = JSON.parse(readFileSync(join(repositoryRoot, 'config/person-server.json'), 'utf8')) as DemoConfig;

export const PROVIDER_KEY = demoKey('ps-agent-provider-agents.example');
export const ALICE_KEY = demoKey('ps-principal-alice');
export const BOB_KEY = demoKey('ps-principal-bob');
export const OPS_KEY = demoKey('ps-principal-ops');

export interface TestKey {
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
  readonly alg: SignatureAlgorithm;
}

/** A fresh key pair, e.g. an agent's own signing key or an unregistered principal key. */
export async function freshKey(kind: 'ES256' | 'Ed25519' = 'Ed25519'): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(kind === 'ES256' ? 'ES256' : 'EdDSA', { extractable: true, ...(kind === 'Ed25519' ? { crv: 'Ed25519' } : {}) });
  return { privateJwk: await exportJWK(privateKey), publicJwk: await exportJWK(publicKey), alg: kind === 'ES256' ? 'ecdsa-p256-sha256' : 'ed25519' };
}

/** The demo key of a principal as a {@link TestKey}. */
export function principalKey(jwk: JWK): TestKey {
  return { privateJwk: jwk, publicJwk: without(jwk, 'd'), alg: jwk.crv === 'Ed25519' ? 'ed25519' : 'ecdsa-p256-sha256' };
}

/** A shallow copy of `value` without `key`. */
export function without<T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> {
  const copy = { ...value };
  delete copy[key];
  return copy;
}

export interface AgentTokenOptions {
  readonly agentKey: TestKey;
  /** Default: the demo agent-provider key with its kid. */
  readonly providerJwk?: JWK;
  readonly kid?: string;
  readonly claims?: JWTPayload;
}

/** An `aa-agent+jwt` minted with the demo agent-provider key (or `providerJwk`), `cnf.jwk` = the agent's key. */
export async function agentToken(options: AgentTokenOptions): Promise<string> {
  const providerJwk = options.providerJwk ?? PROVIDER_KEY;
  const { kty, crv, x, y } = options.agentKey.publicJwk;
  const claims: JWTPayload = {
    iss: PROVIDER,
    sub: AGENT,
    iat: NOW_SECONDS - 10,
    exp: NOW_SECONDS + 3600,
    cnf: { jwk: { kty, crv, x, ...(y !== undefined ? { y } : {}) } },
    ...options.claims,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  const alg = providerJwk.crv === 'Ed25519' ? 'EdDSA' : 'ES256';
  return new SignJWT(claims)
    .setProtectedHeader({ alg, typ: 'aa-agent+jwt', kid: options.kid ?? providerJwk.kid ?? 'provider-1' })
    .sign(await importJWK(providerJwk, alg));
}

/** `Signature-Key` member `sig` for an Agent Token. */
export function jwtSignatureKey(token: string): string {
  return `sig=jwt;jwt="${token}"`;
}

/** `Signature-Key` member `sig` for a bare public key (Management Principals). */
export function hwkSignatureKey(key: TestKey): string {
  const { kty, crv, x, y } = key.publicJwk;
  return `sig=hwk;kty="${kty}";crv="${crv}";x="${x}"${y !== undefined ? `;y="${y}"` : ''}`;
}

export interface SignOptions {
  readonly key: TestKey;
  readonly signatureKey: string;
  readonly method?: string;
  readonly path?: string;
  /** JSON text sent as the body (with `Content-Type: application/json` and its `Content-Digest`). */
  readonly body?: string;
  /** Default: {@link NOW_SECONDS}. */
  readonly created?: number;
  /** Default: the DESIGN 3.2 set (with the body components when there is a body). */
  readonly components?: readonly string[];
  /** Extra request headers, set before signing. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The authority the signer targets; default {@link BASE_URL}. */
  readonly signedUrl?: string;
  readonly label?: string;
  readonly expires?: number;
  /** A `nonce` signature parameter: makes two signatures of identical requests differ (Ed25519 is deterministic). */
  readonly nonce?: string;
}

export type TestRequest = IncomingSignedRequest & { headers: Record<string, string>; rawBody?: Buffer };

/** A request signed with RFC 9421 exactly as a DESIGN 3.2 client sends it. */
export function signedRequest(options: SignOptions): TestRequest {
  const method = options.method ?? (options.body !== undefined ? 'POST' : 'GET');
  const path = options.path ?? '/mission';
  const headers: Record<string, string> = { host: 'ps.example', 'signature-key': options.signatureKey };
  let rawBody: Buffer | undefined;
  if (options.body !== undefined) {
    rawBody = Buffer.from(options.body, 'utf8');
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(rawBody.byteLength);
    headers['content-digest'] = contentDigest(rawBody);
  }
  Object.assign(headers, options.headers);
  const components =
    options.components ?? ['@method', '@authority', '@path', 'signature-key', ...(rawBody !== undefined ? ['content-type', 'content-digest'] : [])];
  const signed = signRequest(
    { method, url: `${options.signedUrl ?? BASE_URL}${path}`, headers },
    {
      label: options.label ?? 'sig',
      components,
      params: {
        created: options.created ?? NOW_SECONDS,
        ...(options.expires !== undefined ? { expires: options.expires } : {}),
        ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
      },
      alg: options.key.alg,
      privateKey: options.key.privateJwk as KeyInput,
    },
  );
  headers['signature-input'] = signed['signature-input'];
  headers['signature'] = signed.signature;
  return { method, originalUrl: path, headers, ...(rawBody !== undefined ? { rawBody } : {}) };
}

/** A request signed by a fresh agent key, presenting an Agent Token minted with the demo provider key. */
export async function agentRequest(options: Partial<SignOptions> & { agentKey?: TestKey; tokenClaims?: JWTPayload; providerJwk?: JWK } = {}): Promise<TestRequest & { agentKey: TestKey }> {
  const agentKey = options.agentKey ?? (await freshKey());
  const token = await agentToken({ agentKey, ...(options.tokenClaims !== undefined ? { claims: options.tokenClaims } : {}), ...(options.providerJwk !== undefined ? { providerJwk: options.providerJwk } : {}) });
  return { ...signedRequest({ ...options, key: options.key ?? agentKey, signatureKey: options.signatureKey ?? jwtSignatureKey(token) }), agentKey };
}

export interface TestAuthenticator {
  readonly authenticator: RequestAuthenticator;
  readonly clock: TestClock;
  readonly replayCache: SignatureReplayCache;
}

/** A RequestAuthenticator over the demo configuration, with a test clock at {@link NOW}. */
export function demoAuthenticator(options: { agentProviders?: AgentProviderKeys; clock?: TestClock; replayCache?: SignatureReplayCache } = {}): TestAuthenticator {
  const clock = options.clock ?? new TestClock();
  const replayCache = options.replayCache ?? new SignatureReplayCache();
  const authenticator = new RequestAuthenticator({
    baseUrl: BASE_URL,
    principals: demoConfig.principals,
    agentProviders: options.agentProviders ?? new AgentProviderKeys(demoConfig.agent_providers),
    replayCache,
    clock,
  });
  return { authenticator, clock, replayCache };
}

/** The failure reason (`Signature-Error` `reason`) a promise rejected with. */
export async function failureOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    const reason = (error as { reason?: unknown }).reason;
    if (typeof reason === 'string') return reason;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

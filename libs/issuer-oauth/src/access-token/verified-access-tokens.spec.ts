import fc from 'fast-check';
import type { JSONWebKeySet, JWTPayload } from 'jose';
import { InvalidTokenError } from '../errors/invalid-token.error.js';
import { ManualClock, signJwt, testKey, withForgedPayload, type TestKey } from '../testing.spec-helper.js';
import { issueAccessToken, type AccessTokenRequest, type AccessTokenSigner } from './issue-access-token.js';
import { VerifiedAccessTokens } from './verified-access-tokens.js';
import { verifyAccessToken } from './verify-access-token.js';

/**
 * Issue 15, ADR 0062: a token verified once skips syntax, header and signature on a repeat; the claim rules run
 * every time. The oracle is the same verification without a cache: with or without it, every answer is the same.
 */
const ISSUER = 'https://issuer.example';
const START = new Date('2026-11-22T10:00:00Z');

let keyA: TestKey;
let keyB: TestKey;
let jwksA: JSONWebKeySet;
let jwksB: JSONWebKeySet;
let clock: ManualClock;

const publish = (key: TestKey): JSONWebKeySet => ({ keys: [{ ...key.publicJwk, kid: key.jkt, alg: 'ES256', use: 'sig' }] });

function request(overrides: Partial<AccessTokenRequest> = {}): AccessTokenRequest {
  return {
    issuer: ISSUER,
    subject: 'alice',
    audience: 'https://files.example',
    clientId: 'agent-a',
    jkt: 'dpop-key-thumbprint',
    authorizationDetails: [{ type: 'mission_resource_access', resource: 'https://files.example', actions: ['read'] }],
    mission: { id: 'msn_AAAAAAAAAAAAAAAAAAAAAA', issuer: ISSUER, authority_hash: 'sha-256:2jmj7l5rSw0yVb_vlWAYkK_YBwk' },
    missionExpiresAt: new Date(START.getTime() + 3600_000),
    issuedAt: START,
    ttlSeconds: 300,
    ...overrides,
  };
}

const signerOf = (key: TestKey): AccessTokenSigner => ({ privateKey: key.privateKey, kid: key.jkt });
const issue = async (key: TestKey = keyA, overrides: Partial<AccessTokenRequest> = {}) => (await issueAccessToken(request(overrides), signerOf(key))).accessToken;

/** The outcome of one verification: the claims, or the refusal's description. */
async function outcome(token: string, jwks: JSONWebKeySet, cache?: VerifiedAccessTokens, audience?: string, issuer = ISSUER): Promise<string> {
  try {
    const { claims } = await verifyAccessToken(token, jwks, { issuer, clock, ...(cache ? { verifiedTokens: cache } : {}), ...(audience ? { audience } : {}) });
    return JSON.stringify(claims);
  } catch (error) {
    if (error instanceof InvalidTokenError) return `refused: ${error.description}`;
    throw error;
  }
}

function flip(token: string, index: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const current = token[index]!;
  if (current === '.') return token;
  return token.slice(0, index) + alphabet[(alphabet.indexOf(current) + 17) % alphabet.length]! + token.slice(index + 1);
}

beforeAll(async () => {
  [keyA, keyB] = await Promise.all([testKey('ES256'), testKey('ES256')]);
  jwksA = publish(keyA);
  jwksB = publish(keyB);
});

beforeEach(() => {
  clock = new ManualClock(START);
});

describe('VerifiedAccessTokens (issue 15, ADR 0062)', () => {
  it('RFC 9068 §4: a repeat is served from the cache (same frozen value) and still passes the claim rules', async () => {
    const cache = new VerifiedAccessTokens();
    const token = await issue();
    const first = await verifyAccessToken(token, jwksA, { issuer: ISSUER, clock, verifiedTokens: cache });
    const second = await verifyAccessToken(token, jwksA, { issuer: ISSUER, clock, verifiedTokens: cache });
    expect(second).toBe(first);
    expect(cache.size).toBe(1);
    expect(Object.isFrozen(second.claims.mission)).toBe(true);
    // A caller cannot alter what the next caller is served (ESM code is strict: assignment to a frozen member throws).
    expect(() => { (second.claims as { sub: string }).sub = 'mallory'; }).toThrow(TypeError);
  });

  it('RFC 9068 §4 attacker: a token differing from a cached one in any single character is verified on its own, never served from the cache', async () => {
    const cache = new VerifiedAccessTokens();
    const token = await issue();
    expect(await outcome(token, jwksA, cache)).not.toMatch(/^refused/);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: token.length - 1 }), async (at) => {
        const mutated = flip(token, at);
        expect(await outcome(mutated, jwksA, cache)).toBe(await outcome(mutated, jwksA));
      }),
      { numRuns: 400 },
    );
    // The plain forgeries: another payload under the cached token's signature, another signature under its payload.
    const [header, payload, signature] = token.split('.');
    const forged = withForgedPayload(token, { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'mallory' } as JWTPayload);
    expect(await outcome(forged, jwksA, cache)).toBe('refused: the access token signature is invalid');
    const otherSignature = (await issue()).split('.')[2];
    expect(await outcome(`${header}.${payload}.${otherSignature}`, jwksA, cache)).toBe('refused: the access token signature is invalid');
    expect(signature).not.toBe(otherSignature);
  });

  it('RFC 9068 §4 / RFC 7519 §4.1.4: a cached token is refused once it expires, and its entry is dropped', async () => {
    const cache = new VerifiedAccessTokens();
    const token = await issue();
    expect(await outcome(token, jwksA, cache)).not.toMatch(/^refused/);
    clock.advance(299);
    expect(await outcome(token, jwksA, cache)).not.toMatch(/^refused/);
    clock.advance(1);
    expect(await outcome(token, jwksA, cache)).toBe('refused: the access token has expired');
    expect(cache.size).toBe(0);
  });

  it('RFC 9068 §4: issuer and audience are checked on every call, cached or not', async () => {
    const cache = new VerifiedAccessTokens();
    const token = await issue();
    expect(await outcome(token, jwksA, cache, 'https://files.example')).not.toMatch(/^refused/);
    expect(await outcome(token, jwksA, cache, 'https://mail.example')).toBe('refused: the access token is not for this audience');
    expect(await outcome(token, jwksA, cache, undefined, 'https://other-issuer.example')).toBe('refused: the access token was not issued here');
  });

  it('RFC 9068 §4 / RFC 7517: after a key rotation a token of the removed key is refused, though it was cached', async () => {
    const cache = new VerifiedAccessTokens();
    const token = await issue(keyA);
    expect(await outcome(token, jwksA, cache)).not.toMatch(/^refused/);
    expect(await outcome(token, jwksB, cache)).toBe('refused: the access token signature is invalid');
    // Both keys published (rotation overlap): verified afresh, then accepted; A removed again: refused.
    const both = { keys: [...jwksA.keys, ...jwksB.keys] };
    expect(await outcome(token, both, cache)).not.toMatch(/^refused/);
    expect(await outcome(token, jwksB, cache)).toBe('refused: the access token signature is invalid');
  });

  it('RFC 9068 §4, rotation race: a verification that finished under the old key set is never served under the new one', async () => {
    const cache = new VerifiedAccessTokens();
    const token = await issue(keyA);
    const verifiedUnderA = await verifyAccessToken(token, jwksA, { issuer: ISSUER, clock });
    // Interleaving: a request under the new set looks up first, then the slow request under the old set remembers.
    expect(cache.lookup(token, jwksB, clock.seconds)).toBeUndefined();
    cache.remember(token, jwksA, verifiedUnderA, clock.seconds);
    expect(cache.lookup(token, jwksB, clock.seconds)).toBeUndefined();
    expect(await outcome(token, jwksB, cache)).toBe('refused: the access token signature is invalid');
  });

  it('ADR 0062: never grows past its bound, and with or without it every answer is the same (fast-check over many tokens, clock moves)', async () => {
    const pool = [
      ...(await Promise.all([0, 1, 2, 3, 4, 5].map(() => issue(keyA)))),
      await issue(keyA, { ttlSeconds: 5 }),
      await issue(keyB),
      await signJwt(keyA, { iss: ISSUER, sub: 'x' }, { typ: 'at+jwt', kid: keyA.jkt }),
    ];
    pool.push(flip(pool[0]!, pool[0]!.length - 3), withForgedPayload(pool[1]!, { iss: ISSUER, sub: 'mallory' }));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.oneof(fc.record({ token: fc.nat({ max: pool.length - 1 }), both: fc.boolean() }), fc.record({ advance: fc.integer({ min: 0, max: 120 }) })), { maxLength: 40 }),
        async (bound, steps) => {
          clock = new ManualClock(START);
          const cache = new VerifiedAccessTokens(bound);
          for (const step of steps) {
            if ('advance' in step) {
              clock.advance(step.advance);
              continue;
            }
            const jwks = step.both ? { keys: [...jwksA.keys, ...jwksB.keys] } : jwksA;
            expect(await outcome(pool[step.token]!, jwks, cache)).toBe(await outcome(pool[step.token]!, jwks));
            expect(cache.size).toBeLessThanOrEqual(bound);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

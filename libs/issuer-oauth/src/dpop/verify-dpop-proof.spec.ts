import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import { InvalidDpopProofError } from '../errors/invalid-dpop-proof.error.js';
import { InvalidGrantError } from '../errors/invalid-grant.error.js';
import { InvalidTokenError } from '../errors/invalid-token.error.js';
import { UseDpopNonceError } from '../errors/use-dpop-nonce.error.js';
import { EventStoreJtiRegistry } from '../replay/event-store-jti-registry.js';
import { InMemoryJtiRegistry } from '../replay/in-memory-jti-registry.js';
import { ManualClock, signJwt, tempStore, testKey, withForgedPayload, type TestKey } from '../testing.spec-helper.js';
import { assertDpopBinding } from './assert-dpop-binding.js';
import type { DpopRequest, DpopVerificationDeps } from './context.js';
import { DpopNonces } from './dpop-nonces.js';
import { accessTokenHash } from './rules/access-token-hash.js';
import { DPOP_PROOF_RULES, verifyDpopProof } from './verify-dpop-proof.js';

const TOKEN_URL = 'https://issuer.example/token';

let storeHandle: Awaited<ReturnType<typeof tempStore>>;
let clock: ManualClock;
let esKey: TestKey;
let edKey: TestKey;
let otherKey: TestKey;
let deps: DpopVerificationDeps;

beforeAll(async () => {
  [esKey, edKey, otherKey] = await Promise.all([testKey('ES256'), testKey('EdDSA'), testKey('ES256')]);
});

beforeEach(async () => {
  storeHandle = await tempStore();
  clock = new ManualClock();
  deps = { jtis: new EventStoreJtiRegistry(storeHandle.store, clock), clock };
});

afterEach(async () => {
  await storeHandle.dispose();
});

function proofClaims(overrides: JWTPayload = {}): JWTPayload {
  return { jti: randomUUID(), htm: 'POST', htu: TOKEN_URL, iat: clock.seconds, ...overrides };
}

async function proof(overrides: JWTPayload = {}, options: { key?: TestKey; header?: Record<string, unknown> } = {}): Promise<string> {
  const key = options.key ?? esKey;
  return signJwt(key, proofClaims(overrides), { typ: 'dpop+jwt', jwk: key.publicJwk, ...options.header });
}

function request(dpop: DpopRequest['dpop'], overrides: Partial<DpopRequest> = {}): DpopRequest {
  return { method: 'POST', url: TOKEN_URL, dpop, ...overrides };
}

async function refusal(promise: Promise<unknown>): Promise<InvalidDpopProofError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidDpopProofError);
  return error as InvalidDpopProofError;
}

describe('verifyDpopProof (RFC 9449 §4.3)', () => {
  it('runs the §4.3 steps in order, replay recorded last', () => {
    expect(DPOP_PROOF_RULES.map((rule) => rule.name)).toEqual([
      'singleDpopHeader', 'wellFormedJwt', 'requiredClaims', 'typHeader', 'algorithm', 'publicJwk', 'signature',
      'htm', 'htu', 'nonce', 'iatWindow', 'athMatchesToken', 'jtiSingleUse',
    ]);
  });

  it('RFC 9449 §4.3: accepts an ES256 proof and returns the RFC 7638 thumbprint and the public key', async () => {
    const result = await verifyDpopProof(request(await proof()), deps);
    expect(result.jkt).toBe(esKey.jkt);
    expect(result.jwk).toEqual({ kty: 'EC', crv: 'P-256', x: esKey.publicJwk.x, y: esKey.publicJwk.y });
  });

  it('RFC 9449 §4.3: accepts an EdDSA proof', async () => {
    await expect(verifyDpopProof(request(await proof({}, { key: edKey })), deps)).resolves.toMatchObject({ jkt: edKey.jkt, jwk: { kty: 'OKP', crv: 'Ed25519' } });
  });

  it('failures are 400 invalid_dpop_proof with a DPoP challenge naming the accepted algs (RFC 9449 §5, §7.1)', async () => {
    const error = await refusal(verifyDpopProof(request(undefined), deps));
    expect(error.status).toBe(400);
    expect(error.toBody()).toEqual({ error: 'invalid_dpop_proof', error_description: 'DPoP proof is required' });
    expect(error.headers['WWW-Authenticate']).toBe('DPoP error="invalid_dpop_proof", algs="ES256 EdDSA Ed25519"');
  });

  describe('step 1: one DPoP header', () => {
    it('RFC 9449 §4.3 step 1: accepts a single header given as a one-element list', async () => {
      await expect(verifyDpopProof(request([await proof()]), deps)).resolves.toBeDefined();
    });
    it('RFC 9449 §4.3 step 1: refuses two DPoP headers (as a list, and as Node joins them)', async () => {
      const [a, b] = [await proof(), await proof()];
      expect((await refusal(verifyDpopProof(request([a, b]), deps))).description).toBe('exactly one DPoP header is allowed');
      await refusal(verifyDpopProof(request(`${a}, ${b}`), deps));
    });
    it('RFC 9449 §4.3 step 1: refuses a request without a proof', async () => {
      await refusal(verifyDpopProof(request(''), deps));
    });
  });

  describe('step 2: a well-formed JWT', () => {
    it('RFC 9449 §4.3 step 2: accepts a compact JWS', async () => {
      await expect(verifyDpopProof(request(await proof()), deps)).resolves.toBeDefined();
    });
    it.each([['garbage', 'not-a-jwt'], ['claims that are not JSON', 'eyJhbGciOiJFUzI1NiJ9.bm9wZQ.c2ln'], ['five segments', 'a.b.c.d.e']])(
      'RFC 9449 §4.3 step 2: refuses %s',
      async (_what, value) => {
        expect((await refusal(verifyDpopProof(request(value), deps))).description).toBe('DPoP proof is not a well-formed JWT');
      },
    );
  });

  describe('step 3: required claims', () => {
    it('RFC 9449 §4.3 step 3: accepts jti, htm, htu and iat', async () => {
      await expect(verifyDpopProof(request(await proof()), deps)).resolves.toBeDefined();
    });
    it.each(['jti', 'htm', 'htu', 'iat'])('RFC 9449 §4.3 step 3: refuses a proof without %s', async (claim) => {
      expect((await refusal(verifyDpopProof(request(await proof({ [claim]: undefined })), deps))).description).toBe(`DPoP proof must contain ${claim}`);
    });
    it('RFC 9449 §4.3 step 3: refuses a proof without ath when a token is presented', async () => {
      expect((await refusal(verifyDpopProof(request(await proof(), { accessToken: 'token' }), deps))).description).toBe('DPoP proof must contain ath');
    });
  });

  describe('step 4: typ', () => {
    it('RFC 9449 §4.3 step 4: accepts typ dpop+jwt', async () => {
      await expect(verifyDpopProof(request(await proof()), deps)).resolves.toBeDefined();
    });
    it.each([['JWT'], [undefined], ['at+jwt']])('RFC 9449 §4.3 step 4: refuses typ %s', async (typ) => {
      expect((await refusal(verifyDpopProof(request(await proof({}, { header: { typ } })), deps))).description).toBe('DPoP proof typ must be dpop+jwt');
    });
  });

  describe('step 5: alg', () => {
    it('RFC 9449 §4.3 step 5: accepts ES256 and EdDSA', async () => {
      await expect(verifyDpopProof(request(await proof({}, { key: edKey })), deps)).resolves.toBeDefined();
    });
    it('RFC 9449 §4.3 step 5: refuses a MAC (HS256)', async () => {
      const hs = await new SignJWT(proofClaims()).setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: esKey.publicJwk }).sign(randomBytes(32));
      expect((await refusal(verifyDpopProof(request(hs), deps))).description).toMatch(/alg must be one of ES256, EdDSA/);
    });
    it('RFC 9449 §4.3 step 5: refuses alg none', async () => {
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: esKey.publicJwk })).toString('base64url');
      await refusal(verifyDpopProof(request(`${header}.${Buffer.from(JSON.stringify(proofClaims())).toString('base64url')}.AAAA`), deps));
    });
    it('RFC 9449 §4.3 step 5: refuses an alg outside a narrowed allow-list and lists the narrowed algs', async () => {
      const error = await refusal(verifyDpopProof(request(await proof({}, { key: edKey })), { ...deps, algorithms: ['ES256'] }));
      expect(error.headers['WWW-Authenticate']).toBe('DPoP error="invalid_dpop_proof", algs="ES256"');
    });
  });

  describe('step 7: the jwk header is a public key', () => {
    it('RFC 9449 §4.3 step 7: accepts a public key', async () => {
      await expect(verifyDpopProof(request(await proof()), deps)).resolves.toBeDefined();
    });
    it('RFC 9449 §4.3 step 7: refuses a jwk carrying the private key', async () => {
      expect((await refusal(verifyDpopProof(request(await proof({}, { header: { jwk: esKey.privateJwk } })), deps))).description).toBe('DPoP proof jwk must not contain a private key');
    });
    it('RFC 9449 §4.2: refuses a proof without jwk', async () => {
      await refusal(verifyDpopProof(request(await proof({}, { header: { jwk: undefined } })), deps));
    });
    it('RFC 9449 §4.2: refuses a jwk of the wrong type for the alg', async () => {
      await refusal(verifyDpopProof(request(await proof({}, { header: { jwk: edKey.publicJwk } })), deps));
    });
  });

  describe('step 6: signature', () => {
    it('RFC 9449 §4.3 step 6: accepts a proof signed by the key in its jwk header', async () => {
      await expect(verifyDpopProof(request(await proof()), deps)).resolves.toBeDefined();
    });
    it('RFC 9449 §4.3 step 6: refuses a proof signed by a key other than its jwk header', async () => {
      expect((await refusal(verifyDpopProof(request(await proof({}, { key: otherKey, header: { jwk: esKey.publicJwk } })), deps))).description).toBe('DPoP proof signature is invalid');
    });
    it('RFC 9449 §4.3 step 6: refuses claims altered under a valid signature', async () => {
      await refusal(verifyDpopProof(request(withForgedPayload(await proof(), proofClaims({ htu: 'https://issuer.example/par' }))), deps));
    });
  });

  describe('step 8: htm', () => {
    it('RFC 9449 §4.3 step 8: accepts the request method', async () => {
      await expect(verifyDpopProof(request(await proof({ htm: 'GET' }), { method: 'GET' }), deps)).resolves.toBeDefined();
    });
    it.each(['GET', 'post'])('RFC 9449 §4.3 step 8: refuses htm %s for a POST', async (method) => {
      expect((await refusal(verifyDpopProof(request(await proof({ htm: method })), deps))).description).toBe('DPoP proof htm does not match the request method');
    });
  });

  describe('step 9: htu', () => {
    it.each([
      ['the exact URI', TOKEN_URL],
      ['with a query and a fragment (ignored)', `${TOKEN_URL}?a=1#frag`],
      ['with upper-case scheme and host (RFC 3986 §6.2.2.1)', 'HTTPS://ISSUER.example/token'],
      ['with the default port (RFC 3986 §6.2.3)', 'https://issuer.example:443/token'],
      ['with a dot segment (RFC 3986 §6.2.2.3)', 'https://issuer.example/x/../token'],
      ['with a percent-encoded unreserved character (RFC 3986 §6.2.2.2)', 'https://issuer.example/%74oken'],
    ])('RFC 9449 §4.3 step 9: accepts htu %s', async (_what, value) => {
      await expect(verifyDpopProof(request(await proof({ htu: value })), deps)).resolves.toBeDefined();
    });
    it('RFC 9449 §4.3 step 9: normalizes the request URL the same way (percent-encoding case)', async () => {
      await expect(verifyDpopProof(request(await proof({ htu: 'https://issuer.example/a%2fb' }), { url: 'https://issuer.example/a%2Fb' }), deps)).resolves.toBeDefined();
    });
    it.each([
      ['another path', 'https://issuer.example/par'],
      ['another host', 'https://evil.example/token'],
      ['another scheme', 'http://issuer.example/token'],
      ['another port', 'https://issuer.example:8443/token'],
      ['a trailing slash', 'https://issuer.example/token/'],
      ['user information', 'https://user@issuer.example/token'],
      ['not a URI', 'token'],
    ])('RFC 9449 §4.3 step 9: refuses htu with %s', async (_what, value) => {
      expect((await refusal(verifyDpopProof(request(await proof({ htu: value })), deps))).description).toBe('DPoP proof htu does not match the request URI');
    });
  });

  describe('step 10: nonce (RFC 9449 §8)', () => {
    let nonces: DpopNonces;
    beforeEach(() => {
      nonces = new DpopNonces(randomBytes(32), clock);
    });

    it('RFC 9449 §8: accepts a proof carrying a nonce the server issued', async () => {
      await expect(verifyDpopProof(request(await proof({ nonce: nonces.issue() })), { ...deps, nonces })).resolves.toBeDefined();
    });
    it('RFC 9449 §8: a proof without the required nonce gets 400 use_dpop_nonce and a fresh DPoP-Nonce', async () => {
      const error = await verifyDpopProof(request(await proof()), { ...deps, nonces }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UseDpopNonceError);
      const nonceError = error as UseDpopNonceError;
      expect(nonceError.status).toBe(400);
      expect(nonceError.code).toBe('use_dpop_nonce');
      expect(nonceError.headers['DPoP-Nonce']).toBe(nonceError.nonce);
      expect(nonces.verify(nonceError.nonce)).toBe(true);
      await expect(verifyDpopProof(request(await proof({ nonce: nonceError.nonce })), { ...deps, nonces })).resolves.toBeDefined();
    });
    it('RFC 9449 §9: at a resource server use_dpop_nonce is a 401 with a DPoP challenge', async () => {
      const error = (await verifyDpopProof(request(await proof()), { ...deps, nonces, resourceServer: true }).catch((caught: unknown) => caught)) as UseDpopNonceError;
      expect(error.status).toBe(401);
      expect(error.headers['WWW-Authenticate']).toBe('DPoP error="use_dpop_nonce"');
    });
    it('RFC 9449 §8: refuses a stale nonce with use_dpop_nonce', async () => {
      const stale = nonces.issue();
      clock.advance(180);
      await expect(verifyDpopProof(request(await proof({ nonce: stale })), { ...deps, nonces })).rejects.toBeInstanceOf(UseDpopNonceError);
    });
    it('RFC 9449 §8: refuses a nonce made with another secret', async () => {
      const foreign = new DpopNonces(randomBytes(32), clock).issue();
      await expect(verifyDpopProof(request(await proof({ nonce: foreign })), { ...deps, nonces })).rejects.toBeInstanceOf(UseDpopNonceError);
    });
    it('RFC 9449 §8: nonces are ignored when the server does not require them', async () => {
      await expect(verifyDpopProof(request(await proof({ nonce: 'anything' })), deps)).resolves.toBeDefined();
    });
  });

  describe('step 11: iat window (RFC 9449 §11.1)', () => {
    it('RFC 9449 §4.3 step 11: accepts iat up to 60 s either side of now', async () => {
      await expect(verifyDpopProof(request(await proof({ iat: clock.seconds - 60 })), deps)).resolves.toBeDefined();
      await expect(verifyDpopProof(request(await proof({ iat: clock.seconds + 60 })), deps)).resolves.toBeDefined();
    });
    it('RFC 9449 §4.3 step 11: refuses a proof older than the window', async () => {
      expect((await refusal(verifyDpopProof(request(await proof({ iat: clock.seconds - 61 })), deps))).description).toBe('DPoP proof is too old');
    });
    it('RFC 9449 §4.3 step 11: refuses a proof from the future', async () => {
      expect((await refusal(verifyDpopProof(request(await proof({ iat: clock.seconds + 61 })), deps))).description).toBe('DPoP proof iat is in the future');
    });
    it('RFC 9449 §11.1: the window is configurable', async () => {
      await refusal(verifyDpopProof(request(await proof({ iat: clock.seconds - 20 })), { ...deps, iatWindowSeconds: 10 }));
    });
  });

  describe('step 12: ath', () => {
    const token = 'eyJ.access.token';
    it('RFC 9449 §4.3 step 12: accepts ath = base64url(SHA-256(token))', async () => {
      expect(accessTokenHash('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
      await expect(verifyDpopProof(request(await proof({ ath: accessTokenHash(token) }), { accessToken: token }), deps)).resolves.toBeDefined();
    });
    it('RFC 9449 §4.3 step 12: refuses an ath of another token', async () => {
      expect((await refusal(verifyDpopProof(request(await proof({ ath: accessTokenHash('other') }), { accessToken: token }), deps))).description).toBe('DPoP proof ath does not match the presented token');
    });
  });

  describe('jti single use (RFC 9449 §11.1) on the real embedded store', () => {
    it('RFC 9449 §11.1: accepts a fresh jti', async () => {
      await expect(verifyDpopProof(request(await proof()), deps)).resolves.toBeDefined();
    });
    it('RFC 9449 §11.1: refuses a replayed proof, also after a restart', async () => {
      const replayed = await proof();
      await verifyDpopProof(request(replayed), deps);
      expect((await refusal(verifyDpopProof(request(replayed), deps))).description).toBe('DPoP proof was already used');
      const restarted = await storeHandle.restart();
      await refusal(verifyDpopProof(request(replayed), { ...deps, jtis: new EventStoreJtiRegistry(restarted, clock) }));
    });
    it('RFC 9449 §11.1: of concurrent replays exactly one wins', async () => {
      const replayed = await proof();
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => verifyDpopProof(request(replayed), deps)));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    });
    it('RFC 9449 §11.1: the same jti under another key is not a replay', async () => {
      await verifyDpopProof(request(await proof({ jti: 'same' })), deps);
      await expect(verifyDpopProof(request(await proof({ jti: 'same' }, { key: otherKey })), deps)).resolves.toBeDefined();
    });
    it('RFC 9449 §11.1: the in-memory registry (single replica only) refuses replays too', async () => {
      const memory = { ...deps, jtis: new InMemoryJtiRegistry(clock) };
      const replayed = await proof();
      await verifyDpopProof(request(replayed), memory);
      await refusal(verifyDpopProof(request(replayed), memory));
    });
  });
});

describe('assertDpopBinding (RFC 9449 §5, §7, §10)', () => {
  it('RFC 9449 §10: accepts a proof whose jkt equals the binding', () => {
    expect(() => assertDpopBinding({ jkt: 'abc' }, 'abc', 'authorization_code')).not.toThrow();
  });
  it('RFC 9449 §10.1: a PAR proof not matching its own dpop_jkt is invalid_dpop_proof', () => {
    expect(() => assertDpopBinding({ jkt: 'abc' }, 'xyz', 'dpop_jkt')).toThrow(InvalidDpopProofError);
  });
  it('RFC 9449 §10: a code bound to another key is invalid_grant', () => {
    expect(() => assertDpopBinding({ jkt: 'abc' }, 'xyz', 'authorization_code')).toThrow(InvalidGrantError);
  });
  it('RFC 9449 §5: a refresh token (or parent_token) bound to another key is invalid_grant', () => {
    expect(() => assertDpopBinding({ jkt: 'abc' }, 'xyz', 'refresh_token')).toThrow(InvalidGrantError);
  });
  it('RFC 9449 §7.1: an access token bound to another key is invalid_token', () => {
    expect(() => assertDpopBinding({ jkt: 'abc' }, 'xyz', 'access_token')).toThrow(InvalidTokenError);
  });
});

import { decodeJwt, decodeProtectedHeader, type JSONWebKeySet, type JWTPayload } from 'jose';
import { InvalidGrantError } from '../errors/invalid-grant.error.js';
import { InvalidTokenError } from '../errors/invalid-token.error.js';
import { ManualClock, signJwt, testKey, withForgedPayload, type TestKey } from '../testing.spec-helper.js';
import type { AccessTokenPayload } from './claims.js';
import { cappedExpiry, issueAccessToken, type AccessTokenRequest, type AccessTokenSigner } from './issue-access-token.js';
import { ACCESS_TOKEN_RULES, verifyAccessToken } from './verify-access-token.js';

const ISSUER = 'https://issuer.example';
const AUTHORITY_HASH = 'sha-256:2jmj7l5rSw0yVb_vlWAYkK_YBwk';

let clock: ManualClock;
let issuerKey: TestKey;
let otherKey: TestKey;
let signer: AccessTokenSigner;
let jwks: JSONWebKeySet;

beforeAll(async () => {
  [issuerKey, otherKey] = await Promise.all([testKey('ES256'), testKey('ES256')]);
  signer = { privateKey: issuerKey.privateKey, kid: issuerKey.jkt };
  jwks = { keys: [{ ...issuerKey.publicJwk, kid: issuerKey.jkt, alg: 'ES256', use: 'sig' }] };
});

beforeEach(() => {
  clock = new ManualClock();
});

function tokenRequest(overrides: Partial<AccessTokenRequest> = {}): AccessTokenRequest {
  return {
    issuer: ISSUER,
    subject: 'alice',
    audience: 'https://files.example',
    clientId: 'agent-a',
    jkt: 'dpop-key-thumbprint',
    authorizationDetails: [{ type: 'mission_resource_access', resource: 'https://files.example', actions: ['read'] }],
    mission: { id: 'msn_AAAAAAAAAAAAAAAAAAAAAA', issuer: ISSUER, authority_hash: AUTHORITY_HASH },
    missionExpiresAt: new Date(clock.now().getTime() + 3600_000),
    issuedAt: clock.now(),
    ttlSeconds: 300,
    ...overrides,
  };
}

const verify = (token: string, extra: { audience?: string } = {}) => verifyAccessToken(token, jwks, { issuer: ISSUER, clock, ...extra });

async function refusal(promise: Promise<unknown>): Promise<InvalidTokenError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidTokenError);
  return error as InvalidTokenError;
}

/** A token signed by the issuer key with arbitrary claims and header, to break one rule at a time. */
async function craft(overrides: Record<string, unknown> = {}, header: Record<string, unknown> = {}, key: TestKey = issuerKey): Promise<string> {
  const { claims } = await issueAccessToken(tokenRequest(), signer);
  const payload = { ...claims, ...overrides } as JWTPayload;
  for (const [name, value] of Object.entries(overrides)) if (value === undefined) delete payload[name];
  return signJwt(key, payload, { typ: 'at+jwt', kid: issuerKey.jkt, ...header });
}

describe('issueAccessToken (RFC 9068, DESIGN 2.3)', () => {
  it('RFC 9068 §2.1: the header is typ at+jwt, alg ES256 and the signer kid', async () => {
    const { accessToken } = await issueAccessToken(tokenRequest(), signer);
    expect(decodeProtectedHeader(accessToken)).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: issuerKey.jkt });
  });

  it('RFC 9068 §2.2: carries iss, sub, aud, client_id, iat, exp, jti, authorization_details, cnf.jkt and mission', async () => {
    const issued = await issueAccessToken(tokenRequest({ jti: 'at-1' }), signer);
    expect(decodeJwt(issued.accessToken)).toEqual({
      iss: ISSUER,
      sub: 'alice',
      aud: 'https://files.example',
      client_id: 'agent-a',
      iat: clock.seconds,
      exp: clock.seconds + 300,
      jti: 'at-1',
      authorization_details: [{ type: 'mission_resource_access', resource: 'https://files.example', actions: ['read'] }],
      cnf: { jkt: 'dpop-key-thumbprint' },
      mission: { id: 'msn_AAAAAAAAAAAAAAAAAAAAAA', issuer: ISSUER, authority_hash: AUTHORITY_HASH },
    });
    expect(issued).toMatchObject({ jti: 'at-1', expiresIn: 300, expiresAt: new Date((clock.seconds + 300) * 1000) });
  });

  it('spec child-mission-delegation §2.3 rule 3: a child token carries mission.parent', async () => {
    const parent = { id: 'msn_BBBBBBBBBBBBBBBBBBBBBB', issuer: ISSUER, authority_hash: AUTHORITY_HASH, depth: 1, cascade_mode: 'immediate' };
    const { accessToken } = await issueAccessToken(tokenRequest({ mission: { id: 'msn_CCCCCCCCCCCCCCCCCCCCCC', issuer: ISSUER, authority_hash: AUTHORITY_HASH, parent } }), signer);
    expect(decodeJwt(accessToken)['mission']).toMatchObject({ parent });
  });

  it('generates a distinct 128-bit jti per token', async () => {
    const [a, b] = await Promise.all([issueAccessToken(tokenRequest(), signer), issueAccessToken(tokenRequest(), signer)]);
    expect(a.jti).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a.jti).not.toBe(b.jti);
  });

  it('DESIGN 2.3: keeps iat + ttl when the mission lives longer', () => {
    expect(cappedExpiry(1000, 300, new Date(5000 * 1000))).toBe(1300);
  });

  it('DESIGN 2.3: caps exp at the mission expires_at', async () => {
    const issued = await issueAccessToken(tokenRequest({ missionExpiresAt: new Date((clock.seconds + 42) * 1000) }), signer);
    expect(issued.claims.exp).toBe(clock.seconds + 42);
    expect(issued.expiresIn).toBe(42);
  });

  it('DESIGN 2.3: refuses to issue for a mission that has expired (invalid_grant, mission_expired)', async () => {
    const error = await issueAccessToken(tokenRequest({ missionExpiresAt: clock.now() }), signer).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidGrantError);
    expect((error as InvalidGrantError).toBody()).toMatchObject({ error: 'invalid_grant', mission_error: 'mission_expired' });
  });

  it('refuses a mission claim naming another issuer and a non-positive ttl', async () => {
    await expect(issueAccessToken(tokenRequest({ mission: { id: 'msn_x', issuer: 'https://other.example', authority_hash: AUTHORITY_HASH } }), signer)).rejects.toThrow(TypeError);
    await expect(issueAccessToken(tokenRequest({ ttlSeconds: 0 }), signer)).rejects.toThrow(TypeError);
  });
});

describe('verifyAccessToken (RFC 9068 §4)', () => {
  it('runs syntax, header and signature before any claim', () => {
    expect(ACCESS_TOKEN_RULES.map((rule) => rule.name)).toEqual(['wellFormedJwt', 'typHeader', 'algorithm', 'signature', 'issuer', 'requiredClaims', 'expiration', 'issuedAt', 'audience']);
  });

  it('RFC 9068 §4: accepts a token this issuer issued and returns its claims', async () => {
    const { accessToken, claims } = await issueAccessToken(tokenRequest(), signer);
    const verified = await verify(accessToken);
    expect(verified.claims).toEqual<AccessTokenPayload>(claims);
    expect(verified.header.kid).toBe(issuerKey.jkt);
  });

  it('failures are 401 invalid_token with a DPoP challenge (RFC 6750 §3.1, RFC 9449 §7.1)', async () => {
    const error = await refusal(verify('nope'));
    expect(error.status).toBe(401);
    expect(error.headers['WWW-Authenticate']).toMatch(/^DPoP error="invalid_token"/);
  });

  it('RFC 7519 §7.2: accepts a compact JWS', async () => {
    await expect(verify(await craft())).resolves.toBeDefined();
  });
  it('RFC 7519 §7.2: refuses a value that is not a JWT', async () => {
    expect((await refusal(verify('a.b'))).description).toBe('the access token is not a JWT');
  });

  it('RFC 9068 §4: accepts typ application/at+jwt', async () => {
    await expect(verify(await craft({}, { typ: 'application/at+jwt' }))).resolves.toBeDefined();
  });
  it.each([['JWT'], ['dpop+jwt'], [undefined]])('RFC 9068 §4: refuses typ %p', async (typ) => {
    expect((await refusal(verify(await craft({}, { typ })))).description).toBe('the access token has the wrong typ');
  });

  it('RFC 9068 §4: accepts ES256', async () => {
    await expect(verify(await craft())).resolves.toBeDefined();
  });
  it('RFC 9068 §4 / RFC 8725 §3.1: refuses alg none and EdDSA', async () => {
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${Buffer.from('{}').toString('base64url')}.AAAA`;
    expect((await refusal(verify(none))).description).toBe('the access token is not signed with ES256');
    const edKey = await testKey('EdDSA');
    await refusal(verify(await craft({}, {}, edKey)));
  });

  it('RFC 9068 §4: accepts the signature of the published key', async () => {
    await expect(verify(await craft())).resolves.toBeDefined();
  });
  it('RFC 9068 §4: refuses a token signed by another key or with altered claims', async () => {
    expect((await refusal(verify(await craft({}, {}, otherKey)))).description).toBe('the access token signature is invalid');
    const { accessToken, claims } = await issueAccessToken(tokenRequest(), signer);
    await refusal(verify(withForgedPayload(accessToken, { ...claims, sub: 'mallory' } as unknown as JWTPayload)));
  });
  it('RFC 9068 §4: refuses a kid that is not published', async () => {
    await refusal(verify(await craft({}, { kid: 'retired' })));
  });

  it('RFC 9068 §4: accepts iss equal to the issuer', async () => {
    await expect(verify(await craft({ iss: ISSUER }))).resolves.toBeDefined();
  });
  it('RFC 9068 §4: refuses another iss', async () => {
    expect((await refusal(verify(await craft({ iss: `${ISSUER}/` })))).description).toBe('the access token was not issued here');
  });

  it('RFC 9068 §2.2: accepts a token with every required claim', async () => {
    await expect(verify(await craft())).resolves.toBeDefined();
  });
  it.each(['exp', 'aud', 'sub', 'client_id', 'iat', 'jti', 'cnf', 'mission', 'authorization_details'])('RFC 9068 §2.2 / RFC 9449 §6.1: refuses a token without %s', async (claim) => {
    expect((await refusal(verify(await craft({ [claim]: undefined })))).description).toBe('the access token lacks required claims');
  });
  it('RFC 9449 §6.1: refuses a cnf without jkt', async () => {
    await refusal(verify(await craft({ cnf: { 'x5t#S256': 'abc' } })));
  });

  it('RFC 9068 §4: accepts a token until its exp', async () => {
    const { accessToken } = await issueAccessToken(tokenRequest(), signer);
    clock.advance(299);
    await expect(verify(accessToken)).resolves.toBeDefined();
  });
  it('RFC 9068 §4: refuses a token at or after its exp', async () => {
    const { accessToken } = await issueAccessToken(tokenRequest(), signer);
    clock.advance(300);
    expect((await refusal(verify(accessToken))).description).toBe('the access token has expired');
  });

  it('RFC 7519 §4.1.6: accepts an iat now, or slightly ahead within a configured tolerance', async () => {
    await expect(verify(await craft({ iat: clock.seconds }))).resolves.toBeDefined();
    await expect(verifyAccessToken(await craft({ iat: clock.seconds + 5 }), jwks, { issuer: ISSUER, clock, clockToleranceSeconds: 5 })).resolves.toBeDefined();
  });
  it('RFC 7519 §4.1.6: refuses a token issued in the future', async () => {
    expect((await refusal(verify(await craft({ iat: clock.seconds + 10 })))).description).toBe('the access token is not yet valid');
  });

  it('RFC 9068 §4: a resource server accepts its own audience', async () => {
    await expect(verify(await craft({ aud: ['https://a.example', 'https://files.example'] }), { audience: 'https://files.example' })).resolves.toBeDefined();
  });
  it('RFC 9068 §4: a resource server refuses a token for another audience', async () => {
    expect((await refusal(verify(await craft(), { audience: 'https://mail.example' }))).description).toBe('the access token is not for this audience');
  });
});

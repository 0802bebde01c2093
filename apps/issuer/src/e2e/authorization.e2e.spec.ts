import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { authorityHash, parseAuthorizationDetails } from '@mission/issuer-domain';
import { createPkcePair, DpopKey } from '@mission/mission-client';
import type { RunningService } from '@mission/platform';
import { demoClient, postForm } from '../testing/demo-clients.js';
import { startIssuer, testBaseUrl } from '../testing/run-issuer.js';

let dataDir: string;
let service: RunningService;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'issuer-authorization-'));
  ({ service } = await startIssuer(dataDir));
});
afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

const REDIRECT_URI = 'http://127.0.0.1:9000/cb';
const details = [{ type: 'mission_resource_access', resource: 'https://erp.example.com', actions: ['invoices.write', 'invoices.read', 'invoices.read'] }];
const intent = (lifetimeMs = 3_600_000) => ({
  intent: { goal: 'Reconcile the March invoices', resources: ['https://erp.example.com'], expires_at: new Date(Date.now() + lifetimeMs).toISOString() },
});

type Form = Record<string, string>;

async function post(path: string, form: Form, clientId?: string, headers: Record<string, string> = {}): Promise<Response> {
  const assertion = clientId === undefined ? {} : await (await demoClient(clientId)).assertion();
  return postForm(service.listenUrl, path, { ...assertion, ...form }, headers);
}

async function expectError(response: Response, status: number, error: string): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  expect({ status: response.status, error: body['error'] }).toEqual({ status, error });
  expect(response.headers.get('cache-control')).toBe('no-store');
  return body;
}

function parForm(pkce: { challenge: string }, overrides: Form = {}): Form {
  return {
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    mission_intent: JSON.stringify(intent()),
    authorization_details: JSON.stringify(details),
    state: 'st-123',
    ...overrides,
  };
}

async function par(clientId: string, form: Form, headers: Record<string, string> = {}): Promise<string> {
  const response = await post('/par', form, clientId, headers);
  const body = (await response.json()) as { request_uri: string; expires_in: number };
  expect(response.status).toBe(201);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(body.expires_in).toBe(60);
  expect(body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:req_[A-Za-z0-9_-]{22}$/);
  return body.request_uri;
}

function authorize(query: Form): Promise<Response> {
  return fetch(`${service.listenUrl}/authorize?${new URLSearchParams(query).toString()}`, { redirect: 'manual' });
}

async function codeFrom(response: Response): Promise<URL> {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
  expect(location.searchParams.get('iss')).toBe(testBaseUrl);
  return location;
}

async function tokenRequest(clientId: string, form: Form, dpop?: DpopKey, proof?: string): Promise<Response> {
  const headers: Record<string, string> = {};
  if (proof !== undefined) headers['DPoP'] = proof;
  else if (dpop !== undefined) headers['DPoP'] = await dpop.proof('POST', `${testBaseUrl}/token`);
  return post('/token', form, clientId, headers);
}

interface Tokens {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  authorization_details: unknown;
  mission_id: string;
  mission_expires_at: string;
}

/** PAR → /authorize (auto approval) → code. */
async function autoCode(options: { parHeaders?: Record<string, string>; parOverrides?: Form } = {}) {
  const pkce = createPkcePair();
  const requestUri = await par('demo-agent', parForm(pkce, options.parOverrides), options.parHeaders);
  const location = await codeFrom(await authorize({ client_id: 'demo-agent', request_uri: requestUri }));
  return { pkce, code: location.searchParams.get('code')!, location };
}

async function redeem(code: string, verifier: string, dpop: DpopKey): Promise<Response> {
  return tokenRequest('demo-agent', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }, dpop);
}

async function autoTokens(): Promise<{ tokens: Tokens; dpop: DpopKey }> {
  const dpop = await DpopKey.generate();
  const { pkce, code } = await autoCode();
  const response = await redeem(code, pkce.verifier, dpop);
  expect(response.status).toBe(200);
  return { tokens: (await response.json()) as Tokens, dpop };
}

function refresh(refreshToken: string, dpop: DpopKey, clientId = 'demo-agent'): Promise<Response> {
  return tokenRequest(clientId, { grant_type: 'refresh_token', refresh_token: refreshToken }, dpop);
}

describe('root mission authorization, auto approval (issue 3 items 3–5)', () => {
  it('PAR → /authorize (302 with code, state, iss) → DPoP-bound at+jwt → refresh rotation; reusing a rotated token revokes the chain', async () => {
    const dpop = await DpopKey.generate();
    const { pkce, code, location } = await autoCode();
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(code).toMatch(/^grt_[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);

    const response = await redeem(code, pkce.verifier, dpop);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
    const tokens = (await response.json()) as Tokens;
    expect(tokens.token_type).toBe('DPoP');
    expect(tokens.mission_id).toMatch(/^msn_[A-Za-z0-9_-]{22}$/);
    const normalized = parseAuthorizationDetails(details);
    expect(tokens.authorization_details).toEqual(normalized);

    // RFC 9068 / DESIGN 2.3: verified against the published /jwks.
    const jwks = createRemoteJWKSet(new URL(`${service.listenUrl}/jwks`));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: testBaseUrl, typ: 'at+jwt', algorithms: ['ES256'] });
    expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
    expect(payload['cnf']).toEqual({ jkt: dpop.jkt });
    expect(payload['client_id']).toBe('demo-agent');
    expect(payload['sub']).toBe('demo-agent');
    expect(payload['aud']).toEqual(['https://erp.example.com']);
    expect(payload['mission']).toEqual({ id: tokens.mission_id, issuer: testBaseUrl, authority_hash: authorityHash(testBaseUrl, normalized) });
    expect(payload.exp! * 1000).toBeLessThanOrEqual(Date.parse(tokens.mission_expires_at));
    expect(payload.exp! - payload.iat!).toBe(tokens.expires_in);

    // Rotation: a new refresh token, the old one dead.
    const rotated = await refresh(tokens.refresh_token, dpop);
    expect(rotated.status).toBe(200);
    const second = (await rotated.json()) as Tokens;
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect(second.mission_id).toBe(tokens.mission_id);

    // Reuse of the rotated token revokes the whole grant, including the current token.
    const body = await expectError(await refresh(tokens.refresh_token, dpop), 400, 'invalid_grant');
    expect(body['error_description']).toMatch(/already used/);
    await expectError(await refresh(second.refresh_token, dpop), 400, 'invalid_grant');
  });

  it('RFC 6749 §4.1.2: a second use of a code is invalid_grant and revokes what the first use issued', async () => {
    const dpop = await DpopKey.generate();
    const { pkce, code } = await autoCode();
    const first = (await (await redeem(code, pkce.verifier, dpop)).json()) as Tokens;
    await expectError(await redeem(code, pkce.verifier, dpop), 400, 'invalid_grant');
    await expectError(await refresh(first.refresh_token, dpop), 400, 'invalid_grant');
  });

  it('RFC 7636 §4.6: a wrong code_verifier is invalid_grant', async () => {
    const { code } = await autoCode();
    await expectError(await redeem(code, createPkcePair().verifier, await DpopKey.generate()), 400, 'invalid_grant');
  });

  it('RFC 9449 §10: a code bound at PAR (DPoP header and dpop_jkt) refuses a proof of another key', async () => {
    const bound = await DpopKey.generate();
    const { pkce, code } = await autoCode({
      parHeaders: { DPoP: await bound.proof('POST', `${testBaseUrl}/par`) },
      parOverrides: { dpop_jkt: bound.jkt },
    });
    await expectError(await redeem(code, pkce.verifier, await DpopKey.generate()), 400, 'invalid_grant');
    expect((await redeem(code, pkce.verifier, bound)).status).toBe(200);
  });

  it('RFC 9449 §10.1: dpop_jkt that differs from the PAR proof key is invalid_dpop_proof', async () => {
    const key = await DpopKey.generate();
    const other = await DpopKey.generate();
    const response = await post('/par', parForm(createPkcePair(), { dpop_jkt: other.jkt }), 'demo-agent', { DPoP: await key.proof('POST', `${testBaseUrl}/par`) });
    await expectError(response, 400, 'invalid_dpop_proof');
  });

  it('RFC 9449 §5: refresh needs a proof of the bound key; another key is invalid_grant and the token survives', async () => {
    const { tokens, dpop } = await autoTokens();
    await expectError(await refresh(tokens.refresh_token, await DpopKey.generate()), 400, 'invalid_grant');
    await expectError(await tokenRequest('demo-agent', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }), 400, 'invalid_dpop_proof');
    expect((await refresh(tokens.refresh_token, dpop)).status).toBe(200);
  });

  it('RFC 9449 §11.1: a replayed DPoP proof is refused', async () => {
    const dpop = await DpopKey.generate();
    const { pkce, code } = await autoCode();
    const proof = await dpop.proof('POST', `${testBaseUrl}/token`);
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: pkce.verifier };
    expect((await tokenRequest('demo-agent', form, undefined, proof)).status).toBe(200);
    const { tokens } = await autoTokens();
    await expectError(await tokenRequest('demo-agent', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, undefined, proof), 400, 'invalid_dpop_proof');
  });

  it('DPoP is required for the authorization_code grant', async () => {
    const { pkce, code } = await autoCode();
    await expectError(await tokenRequest('demo-agent', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: pkce.verifier }), 400, 'invalid_dpop_proof');
  });

  it('RFC 6749 §4.1.3: redirect_uri must match the authorization request', async () => {
    const { pkce, code } = await autoCode();
    const response = await tokenRequest('demo-agent', { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9000/other', code_verifier: pkce.verifier }, await DpopKey.generate());
    await expectError(response, 400, 'invalid_grant');
  });

  it('DESIGN 2.3: a revoked mission derives nothing more (invalid_grant, mission_error mission_revoked)', async () => {
    const { tokens, dpop } = await autoTokens();
    const revoked = await post('/missions/lifecycle', { mission_id: tokens.mission_id, operation: 'revoke', reason: 'test' }, 'demo-agent');
    expect(revoked.status).toBe(200);
    const body = await expectError(await refresh(tokens.refresh_token, dpop), 400, 'invalid_grant');
    expect(body['mission_error']).toBe('mission_revoked');
  });

  it('RFC 9126 §4: a request_uri is used once; an unknown one or another client is refused without redirect', async () => {
    const requestUri = await par('demo-agent', parForm(createPkcePair()));
    await expectError(await authorize({ client_id: 'demo-consent-agent', request_uri: requestUri }), 400, 'invalid_request');
    await codeFrom(await authorize({ client_id: 'demo-agent', request_uri: requestUri }));
    await expectError(await authorize({ client_id: 'demo-agent', request_uri: requestUri }), 400, 'invalid_request');
    await expectError(await authorize({ client_id: 'demo-agent', request_uri: 'urn:ietf:params:oauth:request_uri:req_AAAAAAAAAAAAAAAAAAAAAA' }), 400, 'invalid_request');
    await expectError(await authorize({ client_id: 'nobody', request_uri: requestUri }), 400, 'invalid_request');
  });
});

describe('consent approval by a person (issue 3 item 4)', () => {
  async function consentPage(pkce = createPkcePair()) {
    const requestUri = await par('demo-consent-agent', parForm(pkce));
    const page = await authorize({ client_id: 'demo-consent-agent', request_uri: requestUri });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    const cookie = page.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^authorize_csrf=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/authorize/);
    const html = await page.text();
    expect(html).toContain('Reconcile the March invoices');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)![1]!;
    expect(cookie.split(';')[0]).toBe(`authorize_csrf=${csrf}`);
    return { pkce, requestUri, csrf, cookie: cookie.split(';')[0]! };
  }

  function decide(form: Form, cookie?: string): Promise<Response> {
    return fetch(`${service.listenUrl}/authorize/decision`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(cookie !== undefined ? { Cookie: cookie } : {}) },
      body: new URLSearchParams(form).toString(),
    });
  }

  it('renders the page, refuses a missing CSRF pair and a wrong password, then approves as alice', async () => {
    const { pkce, requestUri, csrf, cookie } = await consentPage();
    const form = { client_id: 'demo-consent-agent', request_uri: requestUri, csrf_token: csrf, person: 'alice', password: 'alice-demo-password', decision: 'approve' };

    await expectError(await decide(form), 403, 'access_denied');
    await expectError(await decide({ ...form, csrf_token: 'x'.repeat(43) }, cookie), 403, 'access_denied');

    const wrong = await decide({ ...form, password: 'wrong' }, cookie);
    expect(wrong.status).toBe(401);
    const unknown = await decide({ ...form, person: 'mallory' }, cookie);
    expect(unknown.status).toBe(401);
    expect(await unknown.text()).toBe(await wrong.text());

    const location = await codeFrom(await decide(form, cookie));
    expect(location.searchParams.get('state')).toBe('st-123');
    const dpop = await DpopKey.generate();
    const response = await tokenRequest('demo-consent-agent', { grant_type: 'authorization_code', code: location.searchParams.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: pkce.verifier }, dpop);
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as Tokens;
    const jwks = createRemoteJWKSet(new URL(`${service.listenUrl}/jwks`));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: testBaseUrl, typ: 'at+jwt' });
    expect(payload['sub']).toBe('alice');
    expect(payload['client_id']).toBe('demo-consent-agent');
  });

  it('decline redirects with access_denied, state and iss', async () => {
    const { requestUri, csrf, cookie } = await consentPage();
    const location = await codeFrom(await decide({ client_id: 'demo-consent-agent', request_uri: requestUri, csrf_token: csrf, person: 'bob', password: 'bob-demo-password', decision: 'decline' }, cookie));
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(location.searchParams.get('code')).toBeNull();
  });
});

describe('malformed input is a 4xx OAuth error, never a 5xx', () => {
  const pkce = createPkcePair();

  it.each<[string, Form, string]>([
    ['mission_intent that is not JSON', { mission_intent: '{"intent":' }, 'invalid_request'],
    ['mission_intent with a duplicate member', { mission_intent: '{"intent":{"goal":"a","goal":"b","resources":["https://erp.example.com"],"expires_at":"2099-01-01T00:00:00Z"}}' }, 'invalid_request'],
    ['mission_intent with an unknown member', { mission_intent: JSON.stringify({ intent: { ...intent().intent, extra: 1 } }) }, 'invalid_request'],
    ['authorization_details with a duplicate member', { authorization_details: '[{"type":"mission_resource_access","type":"x","resource":"https://erp.example.com","actions":["a"]}]' }, 'invalid_authorization_details'],
    ['authorization_details of an unknown type', { authorization_details: JSON.stringify([{ type: 'payment_initiation', resource: 'https://erp.example.com', actions: ['a'] }]) }, 'invalid_authorization_details'],
    ['a request_uri parameter (RFC 9126 §2.1)', { request_uri: 'urn:ietf:params:oauth:request_uri:x' }, 'invalid_request'],
    ['parent_token without parent and child_actor (spec child-mission-delegation 4.1: all three are required)', { parent_token: 'x' }, 'invalid_request'],
    ['an unregistered redirect_uri', { redirect_uri: 'http://127.0.0.1:9000/evil' }, 'invalid_request'],
    ['response_type token', { response_type: 'token' }, 'invalid_request'],
    ['code_challenge_method plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no code_challenge', { code_challenge: '' }, 'invalid_request'],
    ['no mission_intent', { mission_intent: '' }, 'invalid_request'],
  ])('PAR with %s', async (_what, overrides, error) => {
    await expectError(await post('/par', parForm(pkce, overrides), 'demo-agent'), 400, error);
  });

  it('PAR with a repeated form parameter', async () => {
    const assertion = await (await demoClient('demo-agent')).assertion();
    const body = `${new URLSearchParams({ ...assertion, ...parForm(pkce) }).toString()}&state=again`;
    const response = await fetch(`${service.listenUrl}/par`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
    await expectError(response, 400, 'invalid_request');
  });

  it('PAR without client authentication is 401 invalid_client', async () => {
    const response = await post('/par', { ...parForm(pkce), client_id: 'demo-agent' });
    await expectError(response, 401, 'invalid_client');
    expect(response.headers.get('www-authenticate')).toContain('invalid_client');
  });

  it('PAR by a client not registered for authorization_code is unauthorized_client', async () => {
    await expectError(await post('/par', parForm(pkce), 'demo-subagent'), 400, 'unauthorized_client');
  });

  it('/authorize refuses authorization parameters outside PAR (DESIGN 2.1) and missing ones', async () => {
    const requestUri = await par('demo-agent', parForm(pkce));
    await expectError(await authorize({ client_id: 'demo-agent', request_uri: requestUri, code_challenge: pkce.challenge }), 400, 'invalid_request');
    await expectError(await authorize({ client_id: 'demo-agent', mission_intent: JSON.stringify(intent()) }), 400, 'invalid_request');
    await expectError(await authorize({ client_id: 'demo-agent' }), 400, 'invalid_request');
    const repeated = await fetch(`${service.listenUrl}/authorize?client_id=demo-agent&client_id=demo-agent&request_uri=${encodeURIComponent(requestUri)}`, { redirect: 'manual' });
    await expectError(repeated, 400, 'invalid_request');
  });

  it('/token: unknown grant_type, unregistered grant, missing parameters, foreign code', async () => {
    await expectError(await post('/token', { grant_type: 'password' }, 'demo-agent'), 400, 'unsupported_grant_type');
    await expectError(await post('/token', { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT_URI }, 'demo-subagent'), 400, 'unauthorized_client');
    await expectError(await post('/token', { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI }, 'demo-agent'), 400, 'invalid_request');
    await expectError(await post('/token', {}, 'demo-agent'), 400, 'invalid_request');
    await expectError(await tokenRequest('demo-agent', { grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: REDIRECT_URI }, await DpopKey.generate()), 400, 'invalid_grant');
    const { pkce: codePkce, code } = await autoCode();
    const other = await tokenRequest('demo-consent-agent', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: codePkce.verifier }, await DpopKey.generate());
    await expectError(other, 400, 'invalid_grant');
    await expectError(await post('/token', { grant_type: 'refresh_token' }, undefined), 401, 'invalid_client');
  });
});

describe('POST /revoke (RFC 7009, issue 3 item 8)', () => {
  it('revokes a refresh token of the client; unknown tokens are 200; another client cannot revoke it; access tokens are unsupported', async () => {
    const { tokens, dpop } = await autoTokens();
    expect((await post('/revoke', { token: 'unknown-token' }, 'demo-agent')).status).toBe(200);
    await expectError(await post('/revoke', { token: tokens.access_token }, 'demo-agent'), 400, 'unsupported_token_type');
    await expectError(await post('/revoke', { token: tokens.refresh_token }, 'demo-consent-agent'), 400, 'invalid_grant');
    expect((await refresh(tokens.refresh_token, dpop)).status).toBe(200);

    const { tokens: second, dpop: secondKey } = await autoTokens();
    const revoked = await post('/revoke', { token: second.refresh_token, token_type_hint: 'refresh_token' }, 'demo-agent');
    expect(revoked.status).toBe(200);
    expect(revoked.headers.get('cache-control')).toBe('no-store');
    await expectError(await refresh(second.refresh_token, secondKey), 400, 'invalid_grant');
    await expectError(await post('/revoke', {}, 'demo-agent'), 400, 'invalid_request');
    await expectError(await post('/revoke', { token: second.refresh_token }), 401, 'invalid_client');
  });
});

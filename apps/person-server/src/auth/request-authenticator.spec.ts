import { contentDigest } from '@mission/http-signatures';
import { calculateJwkThumbprint } from 'jose';
import { parseDictionary } from 'structured-headers';
import { SignatureVerificationProblem } from '../errors/signature-verification.problem.js';
import { callerKey } from '../identity/authenticated-caller.js';
import {
  AGENT,
  ALICE_KEY,
  BOB_KEY,
  NOW_SECONDS,
  OPS_KEY,
  PROVIDER,
  agentRequest,
  agentToken,
  demoAuthenticator,
  failureOf,
  freshKey,
  hwkSignatureKey,
  jwtSignatureKey,
  principalKey,
  signedRequest,
  without,
} from '../testing/signed-request.spec-helper.js';

const BODY = '{"operation":"status","mission_s256":"n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg"}';
const alice = principalKey(ALICE_KEY);
const bob = principalKey(BOB_KEY);
const ops = principalKey(OPS_KEY);

describe('RequestAuthenticator: accepted requests (spec 5.1, 5.3, DESIGN 3.2)', () => {
  it('spec 5.1: an Agent request signed with its Agent Token key, with a body, yields the agent, its key thumbprint and the token claims', async () => {
    const { authenticator } = demoAuthenticator();
    const request = await agentRequest({ body: BODY });
    const caller = await authenticator.authenticate(request);
    expect(caller).toEqual({
      kind: 'agent',
      provider: PROVIDER,
      agent: AGENT,
      agentJkt: await calculateJwkThumbprint(request.agentKey.publicJwk, 'sha256'),
      tokenClaims: expect.objectContaining({ iss: PROVIDER, sub: AGENT, iat: NOW_SECONDS - 10, exp: NOW_SECONDS + 3600 }),
    });
    expect(callerKey(caller)).toBe('agent:https%3A%2F%2Fagents.example:aauth%3Aassistant%40agents.example');
    const token = /jwt="([^"]+)"/.exec(request.headers['signature-key'])![1]!;
    expect(JSON.stringify(caller)).not.toContain(token.split('.')[2]);
  });

  it('spec 5.1: an ES256 agent key works as well as Ed25519', async () => {
    const { authenticator } = demoAuthenticator();
    const request = await agentRequest({ agentKey: await freshKey('ES256'), body: BODY });
    await expect(authenticator.authenticate(request)).resolves.toMatchObject({ kind: 'agent', agent: AGENT });
  });

  it('DESIGN 3.3: a sub-agent token reports its parent_agent', async () => {
    const { authenticator } = demoAuthenticator();
    const request = await agentRequest({ tokenClaims: { sub: 'aauth:helper@agents.example', parent_agent: AGENT } });
    await expect(authenticator.authenticate(request)).resolves.toMatchObject({
      kind: 'agent',
      agent: 'aauth:helper@agents.example',
      parentAgent: AGENT,
    });
  });

  it('DESIGN 3.2: a person signing with a registered hwk key (Ed25519) is the principal with role, tenant and owned agents', async () => {
    const { authenticator } = demoAuthenticator();
    const caller = await authenticator.authenticate(signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), body: BODY }));
    expect(caller).toEqual({ kind: 'principal', id: 'alice', role: 'person', tenant: 't1', agents: [AGENT] });
    expect(callerKey(caller)).toBe('principal:alice');
  });

  it('DESIGN 3.2: an administrator (ES256 hwk key) is a principal with role admin and no agents; a GET without body needs no digest', async () => {
    const { authenticator } = demoAuthenticator();
    await expect(authenticator.authenticate(signedRequest({ key: ops, signatureKey: hwkSignatureKey(ops), path: '/mission/pending/p1' }))).resolves.toEqual({
      kind: 'principal',
      id: 'ops',
      role: 'admin',
      tenant: 't1',
      agents: [],
    });
    await expect(authenticator.authenticate(signedRequest({ key: bob, signatureKey: hwkSignatureKey(bob) }))).resolves.toMatchObject({ id: 'bob' });
  });

  it('DESIGN 3.2: additional covered components that are present are accepted', async () => {
    const { authenticator } = demoAuthenticator();
    const request = signedRequest({
      key: alice,
      signatureKey: hwkSignatureKey(alice),
      body: BODY,
      path: '/mission?x=1',
      headers: { date: 'Sun, 01 Mar 2026 12:00:00 GMT' },
      components: ['@method', '@authority', '@path', '@query', 'signature-key', 'content-type', 'content-digest', 'content-length', 'date'],
    });
    await expect(authenticator.authenticate(request)).resolves.toMatchObject({ id: 'alice' });
  });

  it('DESIGN 3.2: created within ±60 s (59 s old, 60 s ahead) is accepted', async () => {
    const { authenticator } = demoAuthenticator();
    await expect(authenticator.authenticate(signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), created: NOW_SECONDS - 59 }))).resolves.toBeDefined();
    await expect(authenticator.authenticate(signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), created: NOW_SECONDS + 60 }))).resolves.toBeDefined();
  });
});

describe('RequestAuthenticator: refused requests (spec 5.1, 5.6, DESIGN 3.2) → 401 Signature-Error', () => {
  it('spec 5.6, DESIGN 3.2: a tampered body fails the Content-Digest check', async () => {
    const { authenticator } = demoAuthenticator();
    const request = await agentRequest({ body: BODY });
    const tampered = { ...request, rawBody: Buffer.from(BODY.replace('status', 'terminate')) };
    await expect(failureOf(authenticator.authenticate(tampered))).resolves.toBe('content_digest_mismatch');
  });

  it('spec 5.6: a body with a recomputed Content-Digest but the original signature fails the signature', async () => {
    const { authenticator } = demoAuthenticator();
    const request = await agentRequest({ body: BODY });
    const other = Buffer.from(BODY.replace('status', 'terminate'));
    const tampered = { ...request, rawBody: other, headers: { ...request.headers, 'content-digest': contentDigest(other) } };
    await expect(failureOf(authenticator.authenticate(tampered))).resolves.toBe('invalid_signature');
  });

  it('DESIGN 3.2: a stale created (61 s old) and one too far ahead (61 s) are refused', async () => {
    const { authenticator } = demoAuthenticator();
    await expect(failureOf(authenticator.authenticate(await agentRequest({ created: NOW_SECONDS - 61 })))).resolves.toBe('created_out_of_window');
    await expect(failureOf(authenticator.authenticate(await agentRequest({ created: NOW_SECONDS + 61 })))).resolves.toBe('created_out_of_window');
  });

  it('DESIGN 3.2: a replayed signature is refused, also after the window closes', async () => {
    const { authenticator, clock } = demoAuthenticator();
    const request = await agentRequest({ body: BODY });
    await authenticator.authenticate(request);
    await expect(failureOf(authenticator.authenticate(request))).resolves.toBe('replayed_signature');
    clock.advance(61);
    await expect(failureOf(authenticator.authenticate(request))).resolves.toBe('created_out_of_window');
  });

  it('DESIGN 3.2: a replayed ECDSA signature with s replaced by n − s (malleated) is still a replay', async () => {
    const { authenticator } = demoAuthenticator();
    const request = signedRequest({ key: ops, signatureKey: hwkSignatureKey(ops), body: BODY });
    await authenticator.authenticate(request);
    const signature = Buffer.from(parseDictionary(request.headers['signature']).get('sig')![0] as ArrayBuffer);
    const n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
    const s = BigInt(`0x${signature.subarray(32).toString('hex')}`);
    const malleated = Buffer.concat([signature.subarray(0, 32), Buffer.from((n - s).toString(16).padStart(64, '0'), 'hex')]);
    const replay = { ...request, headers: { ...request.headers, signature: `sig=:${malleated.toString('base64')}:` } };
    await expect(failureOf(authenticator.authenticate(replay))).resolves.toBe('replayed_signature');
  });

  it('spec 5.1, DESIGN 3.2: a signature not covering content-digest over a body is refused with the required list', async () => {
    const { authenticator } = demoAuthenticator();
    const request = await agentRequest({ body: BODY, components: ['@method', '@authority', '@path', 'signature-key', 'content-type'] });
    const refusal = await authenticator.authenticate(request).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SignatureVerificationProblem);
    const error = refusal as SignatureVerificationProblem;
    expect(error.reason).toBe('missing_required_component');
    expect(error.status).toBe(401);
    expect(error.headers['Signature-Error']).toBe(
      'error=invalid_input, required_input=("@method" "@authority" "@path" "signature-key" "content-type" "content-digest"), reason=missing_required_component',
    );
  });

  it('DESIGN 3.2: a signature not covering signature-key is refused even without a body', async () => {
    const { authenticator } = demoAuthenticator();
    const request = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), components: ['@method', '@authority', '@path'] });
    await expect(failureOf(authenticator.authenticate(request))).resolves.toBe('missing_required_component');
  });

  it('spec 5.1: a request without Signature-Input/Signature, or without the label sig, is refused', async () => {
    const { authenticator } = demoAuthenticator();
    const request = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice) });
    await expect(failureOf(authenticator.authenticate({ ...request, headers: without(request.headers, 'signature') }))).resolves.toBe('missing_signature');
    const otherLabel = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), label: 'other' });
    await expect(failureOf(authenticator.authenticate(otherLabel))).resolves.toBe('missing_signature');
  });

  it('DESIGN 3.2: an unknown principal key (hwk not registered) is refused', async () => {
    const { authenticator } = demoAuthenticator();
    const stranger = await freshKey('Ed25519');
    await expect(failureOf(authenticator.authenticate(signedRequest({ key: stranger, signatureKey: hwkSignatureKey(stranger) })))).resolves.toBe('unknown_key');
  });

  it('DESIGN 3.2: an Agent Token from an unknown agent provider is refused', async () => {
    const { authenticator } = demoAuthenticator();
    const agentKey = await freshKey();
    const rogue = await freshKey('ES256');
    const token = await agentToken({ agentKey, providerJwk: { ...rogue.privateJwk, kid: 'rogue-1' }, claims: { iss: 'https://evil.example' } });
    const request = signedRequest({ key: agentKey, signatureKey: jwtSignatureKey(token) });
    await expect(failureOf(authenticator.authenticate(request))).resolves.toBe('unknown_issuer');
  });

  it('DESIGN 3.2: an Agent Token claiming the trusted provider but signed with another key is refused', async () => {
    const { authenticator } = demoAuthenticator();
    const agentKey = await freshKey();
    const rogue = await freshKey('ES256');
    const token = await agentToken({ agentKey, providerJwk: rogue.privateJwk, kid: 'Nd1ZvtE6kAhoFKwFPenHJmmE2FAXQS954ri50PTgWfI' });
    await expect(failureOf(authenticator.authenticate(signedRequest({ key: agentKey, signatureKey: jwtSignatureKey(token) })))).resolves.toBe(
      'invalid_agent_token',
    );
  });

  it('DESIGN 3.2: an expired Agent Token is refused', async () => {
    const { authenticator } = demoAuthenticator();
    const request = await agentRequest({ tokenClaims: { iat: NOW_SECONDS - 7200, exp: NOW_SECONDS - 1 } });
    await expect(failureOf(authenticator.authenticate(request))).resolves.toBe('expired_agent_token');
  });

  it('spec 5.1: a request signed with a key other than the Agent Token cnf key is refused', async () => {
    const { authenticator } = demoAuthenticator();
    const request = await agentRequest({ key: await freshKey() });
    await expect(failureOf(authenticator.authenticate(request))).resolves.toBe('invalid_signature');
  });

  it('spec 5.1: a signature for another path or another authority does not verify here', async () => {
    const { authenticator } = demoAuthenticator();
    const request = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), path: '/mission' });
    await expect(failureOf(authenticator.authenticate({ ...request, originalUrl: '/mission/approvals' }))).resolves.toBe('invalid_signature');
    const elsewhere = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), signedUrl: 'https://other.example' });
    await expect(failureOf(authenticator.authenticate(elsewhere))).resolves.toBe('invalid_signature');
  });

  it('DESIGN 3.2: a covered header that is absent from the request is refused', async () => {
    const { authenticator } = demoAuthenticator();
    const request = signedRequest({
      key: alice,
      signatureKey: hwkSignatureKey(alice),
      headers: { date: 'x' },
      components: ['@method', '@authority', '@path', 'signature-key', 'date'],
    });
    await expect(failureOf(authenticator.authenticate({ ...request, headers: without(request.headers, 'date') }))).resolves.toBe('missing_component');
  });

  it('DESIGN 3.2: jwks_uri keys are not accepted on incoming requests', async () => {
    const { authenticator } = demoAuthenticator();
    const request = signedRequest({ key: alice, signatureKey: 'sig=jwks_uri;id="https://agents.example";dwk="aauth-agent.json";kid="k1"' });
    await expect(failureOf(authenticator.authenticate(request))).resolves.toBe('unsupported_scheme');
  });

  it('DESIGN 3.2: @authority is the PS BASE_URL, so an absolute-form request target is refused', async () => {
    const { authenticator } = demoAuthenticator();
    const request = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice) });
    await expect(failureOf(authenticator.authenticate({ ...request, originalUrl: 'https://ps.example/mission' }))).resolves.toBe('invalid_target');
    await expect(failureOf(authenticator.authenticate({ ...request, originalUrl: '//evil.example/mission' }))).resolves.toBe('invalid_target');
  });

  it('spec 5.6: a body the server could not keep as raw bytes cannot be digest-checked and is refused', async () => {
    const { authenticator } = demoAuthenticator();
    const request = without(await agentRequest({ body: BODY }), 'rawBody');
    await expect(failureOf(authenticator.authenticate(request))).resolves.toBe('unreadable_body');
  });
});

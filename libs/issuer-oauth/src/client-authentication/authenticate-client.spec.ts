import { randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError } from '@mission/event-store';
import type { JWTPayload } from 'jose';
import { InvalidClientError } from '../errors/invalid-client.error.js';
import { EventStoreJtiRegistry, jtiStreamName } from '../replay/event-store-jti-registry.js';
import { ManualClock, signJwt, tempStore, testKey, withForgedPayload, type TestKey } from '../testing.spec-helper.js';
import { authenticateClient, CLIENT_AUTHENTICATION_RULES } from './authenticate-client.js';
import type { RegisteredClient } from './client-registry.js';
import { CLIENT_ASSERTION_TYPE_JWT_BEARER, type ClientAuthenticationDeps } from './context.js';

const ISSUER = 'https://issuer.example';
const JWT_BEARER = CLIENT_ASSERTION_TYPE_JWT_BEARER;

interface Registration extends RegisteredClient {
  readonly permissions: readonly string[];
}

let storeHandle: Awaited<ReturnType<typeof tempStore>>;
let clock: ManualClock;
let esKey: TestKey;
let edKey: TestKey;
let secondKey: TestKey;
let strangerKey: TestKey;
let clients: Map<string, Registration>;
let deps: ClientAuthenticationDeps<Registration>;

beforeAll(async () => {
  [esKey, edKey, secondKey, strangerKey] = await Promise.all([testKey('ES256'), testKey('EdDSA'), testKey('ES256'), testKey('ES256')]);
  clients = new Map<string, Registration>([
    ['agent-es', { client_id: 'agent-es', jwks: { keys: [{ ...esKey.publicJwk, kid: 'es-1', alg: 'ES256', use: 'sig' }] }, permissions: ['status'] }],
    ['agent-ed', { client_id: 'agent-ed', jwks: { keys: [{ ...edKey.publicJwk, kid: 'ed-1' }] }, permissions: [] }],
    // two keys without kid: the verifier must try every candidate
    ['agent-two', { client_id: 'agent-two', jwks: { keys: [{ ...secondKey.publicJwk }, { ...esKey.publicJwk }] }, permissions: [] }],
  ]);
});

beforeEach(async () => {
  storeHandle = await tempStore();
  clock = new ManualClock();
  deps = {
    clients: { findClient: (id) => clients.get(id) },
    jtis: new EventStoreJtiRegistry(storeHandle.store, clock),
    clock,
    issuer: ISSUER,
  };
});

afterEach(async () => {
  await storeHandle.dispose();
});

function claims(overrides: JWTPayload = {}, clientId = 'agent-es'): JWTPayload {
  return { iss: clientId, sub: clientId, aud: ISSUER, iat: clock.seconds, exp: clock.seconds + 60, jti: randomUUID(), ...overrides };
}

async function form(overrides: JWTPayload = {}, options: { key?: TestKey; clientId?: string; header?: Record<string, unknown> } = {}) {
  const key = options.key ?? esKey;
  const assertion = await signJwt(key, claims(overrides, options.clientId), { typ: 'JWT', ...(key === esKey ? { kid: 'es-1' } : {}), ...options.header });
  return { client_assertion_type: JWT_BEARER, client_assertion: assertion };
}

async function refusal(promise: Promise<unknown>): Promise<InvalidClientError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidClientError);
  return error as InvalidClientError;
}

describe('authenticateClient (private_key_jwt)', () => {
  it('runs its rules in the documented order, single use last', () => {
    expect(CLIENT_AUTHENTICATION_RULES.map((rule) => rule.name)).toEqual([
      'clientAssertionType', 'singleAuthenticationMethod', 'clientAssertionFormat', 'assertionAlgorithm', 'assertionTypHeader',
      'requiredClaims', 'issuerIsSubject', 'clientIdParameter', 'registeredClient', 'assertionSignature', 'audience',
      'expiration', 'notBefore', 'issuedAt', 'jtiSingleUse',
    ]);
  });

  it('RFC 7523 §2.2: authenticates an ES256 assertion and returns the full registration', async () => {
    const result = await authenticateClient(await form(), deps);
    expect(result.clientId).toBe('agent-es');
    expect(result.client.permissions).toEqual(['status']);
    expect(result.assertion.exp).toBe(clock.seconds + 60);
  });

  it('RFC 7523 §2.2: authenticates an EdDSA (Ed25519) assertion', async () => {
    await expect(authenticateClient(await form({}, { key: edKey, clientId: 'agent-ed', header: { kid: 'ed-1' } }), deps)).resolves.toMatchObject({ clientId: 'agent-ed' });
  });

  it('failures are 401 invalid_client with a non-Bearer challenge (RFC 6749 §5.2, RFC 9110 §15.5.2)', async () => {
    const error = await refusal(authenticateClient({}, deps));
    expect(error.status).toBe(401);
    expect(error.toBody()).toEqual({ error: 'invalid_client', error_description: 'client authentication is required (private_key_jwt)' });
    expect(error.headers['WWW-Authenticate']).toBe('private_key_jwt error="invalid_client"');
  });

  describe('client_assertion_type (RFC 7521 §4.2)', () => {
    it('RFC 7521 §4.2: accepts the jwt-bearer URN', async () => {
      await expect(authenticateClient(await form(), deps)).resolves.toBeDefined();
    });
    it('RFC 7521 §4.2: refuses a missing client_assertion_type', async () => {
      const { client_assertion } = await form();
      expect((await refusal(authenticateClient({ client_assertion }, deps))).description).toBe('client_assertion_type is required');
    });
    it('RFC 7521 §4.2: refuses another assertion type (SAML)', async () => {
      const request = { ...(await form()), client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer' };
      expect((await refusal(authenticateClient(request, deps))).description).toMatch(/must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer/);
    });
    it('RFC 6749 §3.2: refuses a repeated client_assertion_type', async () => {
      await refusal(authenticateClient({ ...(await form()), client_assertion_type: [JWT_BEARER, JWT_BEARER] }, deps));
    });
  });

  describe('one method only (RFC 6749 §2.3)', () => {
    it('RFC 6749 §2.3: accepts an assertion without any other credential', async () => {
      await expect(authenticateClient({ ...(await form()), client_id: 'agent-es' }, deps)).resolves.toBeDefined();
    });
    it('RFC 6749 §2.3: refuses an assertion sent together with client_secret', async () => {
      await refusal(authenticateClient({ ...(await form()), client_secret: 's3cret' }, deps));
    });
    it('RFC 6749 §2.3: refuses an assertion sent together with an Authorization header (client_secret_basic)', async () => {
      const error = await refusal(authenticateClient(await form(), deps, { authorization: 'Basic YWdlbnQtZXM6czNjcmV0' }));
      expect(error.description).toBe('only one client authentication method may be used (private_key_jwt)');
    });
  });

  describe('client_assertion syntax (RFC 7521 §4.2, RFC 7515 §7.1)', () => {
    it('RFC 7521 §4.2: refuses a missing client_assertion', async () => {
      expect((await refusal(authenticateClient({ client_assertion_type: JWT_BEARER }, deps))).description).toBe('client_assertion is required');
    });
    it.each([
      ['not a JWT', 'hello'],
      ['an unsigned JWT (alg none, empty signature)', `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.`],
      ['a JWE (five segments)', 'a.b.c.d.e'],
      ['a header that is not JSON', 'bm90IGpzb24.e30.c2ln'],
      ['an oversized token', `${'a'.repeat(9000)}.e30.c2ln`],
    ])('RFC 7521 §4.2: refuses %s', async (_what, assertion) => {
      expect((await refusal(authenticateClient({ client_assertion_type: JWT_BEARER, client_assertion: assertion }, deps))).description).toBe('client_assertion is not a signed JWT');
    });
    it('RFC 6749 §3.2: refuses a repeated client_assertion', async () => {
      const { client_assertion } = await form();
      await refusal(authenticateClient({ client_assertion_type: JWT_BEARER, client_assertion: [client_assertion, client_assertion] }, deps));
    });
  });

  describe('algorithm (RFC 7523 §3 item 9, RFC 8725 §3.1)', () => {
    it('RFC 7523 §3 item 9: accepts ES256 and EdDSA', async () => {
      await expect(authenticateClient(await form(), deps)).resolves.toBeDefined();
      await expect(authenticateClient(await form({}, { key: edKey, clientId: 'agent-ed' }), deps)).resolves.toBeDefined();
    });
    it('RFC 8725 §3.1: refuses an HS256 assertion (symmetric, e.g. keyed with the public key)', async () => {
      const { SignJWT } = await import('jose');
      const hs = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(32)));
      expect((await refusal(authenticateClient({ client_assertion_type: JWT_BEARER, client_assertion: hs }, deps))).description).toMatch(/must be signed with ES256, EdDSA/);
    });
    it('RFC 8725 §3.1: refuses alg none', async () => {
      const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.AAAA`;
      await refusal(authenticateClient({ client_assertion_type: JWT_BEARER, client_assertion: none }, deps));
    });
  });

  describe('explicit typing (RFC 8725 §3.11)', () => {
    it('RFC 8725 §3.11: accepts typ JWT, client-authentication+jwt or no typ', async () => {
      await expect(authenticateClient(await form({}, { header: { typ: 'client-authentication+jwt' } }), deps)).resolves.toBeDefined();
      await expect(authenticateClient(await form({}, { header: { typ: undefined } }), deps)).resolves.toBeDefined();
    });
    it('RFC 8725 §3.11: refuses a DPoP proof (typ dpop+jwt) presented as an assertion', async () => {
      expect((await refusal(authenticateClient(await form({}, { header: { typ: 'dpop+jwt' } }), deps))).description).toBe('client_assertion has the wrong typ');
    });
  });

  describe('required claims (RFC 7523 §3 items 1–4, 7)', () => {
    it('RFC 7523 §3: accepts iss, sub, aud, exp and jti (nbf and iat optional)', async () => {
      await expect(authenticateClient(await form({ iat: undefined }), deps)).resolves.toBeDefined();
    });
    it.each(['iss', 'sub', 'aud', 'exp', 'jti'])('RFC 7523 §3: refuses an assertion without %s', async (claim) => {
      expect((await refusal(authenticateClient(await form({ [claim]: undefined }), deps))).description).toBe(`client_assertion must contain ${claim}`);
    });
    it('RFC 7519 §4.1.4: refuses an exp that is not a NumericDate', async () => {
      await refusal(authenticateClient(await form({ exp: String(clock.seconds + 60) as unknown as number }), deps));
    });
    it('RFC 7523 §3 item 7: refuses a jti longer than 256 characters', async () => {
      await refusal(authenticateClient(await form({ jti: 'j'.repeat(257) }), deps));
    });
  });

  describe('iss = sub = client_id (RFC 7523 §3 items 1–2)', () => {
    it('RFC 7523 §3 items 1–2: accepts iss = sub', async () => {
      await expect(authenticateClient(await form(), deps)).resolves.toBeDefined();
    });
    it('RFC 7523 §3 items 1–2: refuses iss different from sub', async () => {
      expect((await refusal(authenticateClient(await form({ iss: 'someone-else' }), deps))).description).toBe('client_assertion iss and sub must both be the client_id');
    });
  });

  describe('client_id parameter (RFC 7521 §4.2)', () => {
    it('RFC 7521 §4.2: accepts a client_id equal to sub', async () => {
      await expect(authenticateClient({ ...(await form()), client_id: 'agent-es' }, deps)).resolves.toBeDefined();
    });
    it('RFC 7521 §4.2: refuses a client_id naming another client', async () => {
      expect((await refusal(authenticateClient({ ...(await form()), client_id: 'agent-ed' }, deps))).description).toBe('client_id does not match the client_assertion');
    });
  });

  describe('registered client and signature (RFC 7523 §3 item 9)', () => {
    it('RFC 7523 §3 item 9: refuses an unknown client with the same words as a bad signature', async () => {
      const unknown = await refusal(authenticateClient(await form({}, { clientId: 'nobody', key: strangerKey }), deps));
      const forged = await refusal(authenticateClient(await form({}, { key: strangerKey, header: { kid: 'es-1' } }), deps));
      expect(unknown.description).toBe('client_assertion could not be verified');
      expect(forged.description).toBe(unknown.description);
    });
    it('RFC 7523 §3 item 9: refuses an assertion signed with another client\'s registered key', async () => {
      await refusal(authenticateClient(await form({}, { key: edKey, clientId: 'agent-es' }), deps));
    });
    it('RFC 7523 §3 item 9: refuses a payload swapped under a valid signature', async () => {
      const { client_assertion } = await form();
      const forged = withForgedPayload(client_assertion, claims({ exp: clock.seconds + 200 }));
      await refusal(authenticateClient({ client_assertion_type: JWT_BEARER, client_assertion: forged }, deps));
    });
    it('RFC 7523 §3 item 9: refuses a kid the client did not register', async () => {
      await refusal(authenticateClient(await form({}, { header: { kid: 'other' } }), deps));
    });
    it('RFC 7523 §3 item 9: tries every registered key when the assertion names no kid', async () => {
      await expect(authenticateClient(await form({}, { clientId: 'agent-two', key: esKey, header: { kid: undefined } }), deps)).resolves.toMatchObject({ clientId: 'agent-two' });
      await expect(authenticateClient(await form({}, { clientId: 'agent-two', key: secondKey }), deps)).resolves.toMatchObject({ clientId: 'agent-two' });
      await refusal(authenticateClient(await form({}, { clientId: 'agent-two', key: strangerKey }), deps));
    });
  });

  describe('audience (RFC 7523 §3 item 3, draft-ietf-oauth-rfc7523bis)', () => {
    it('RFC 7523 §3 item 3: accepts the issuer identifier, as a string or as the sole array member', async () => {
      await expect(authenticateClient(await form({ aud: ISSUER }), deps)).resolves.toBeDefined();
      await expect(authenticateClient(await form({ aud: [ISSUER] }), deps)).resolves.toBeDefined();
    });
    it.each([
      ['the token endpoint URL', `${ISSUER}/token`],
      ['the issuer with a trailing slash', `${ISSUER}/`],
      ['another server', 'https://other.example'],
      ['the issuer beside another audience', [ISSUER, 'https://other.example']],
    ])('RFC 7523 §3 item 3 (rfc7523bis sole audience): refuses %s', async (_what, aud) => {
      expect((await refusal(authenticateClient(await form({ aud }), deps))).description).toBe('client_assertion aud must be the issuer identifier');
    });
  });

  describe('time (RFC 7523 §3 items 4–6)', () => {
    it('RFC 7523 §3 item 4: accepts exp up to 5 minutes ahead and just past within the 30 s skew', async () => {
      await expect(authenticateClient(await form({ exp: clock.seconds + 300 }), deps)).resolves.toBeDefined();
      await expect(authenticateClient(await form({ exp: clock.seconds - 29, iat: clock.seconds - 60 }), deps)).resolves.toBeDefined();
    });
    it('RFC 7523 §3 item 4: refuses an expired assertion', async () => {
      expect((await refusal(authenticateClient(await form({ exp: clock.seconds - 30, iat: clock.seconds - 60 }), deps))).description).toBe('client_assertion has expired');
    });
    it('RFC 7523 §3 item 4: refuses an exp too far in the future', async () => {
      expect((await refusal(authenticateClient(await form({ exp: clock.seconds + 331 }), deps))).description).toBe('client_assertion exp must be at most 300 seconds ahead');
    });
    it('RFC 7523 §3 item 4: honours a configured maximum lifetime', async () => {
      await refusal(authenticateClient(await form({ exp: clock.seconds + 120 }), { ...deps, maxAssertionLifetimeSeconds: 60 }));
    });
    it('RFC 7523 §3 item 5: accepts nbf now or within the skew', async () => {
      await expect(authenticateClient(await form({ nbf: clock.seconds + 30 }), deps)).resolves.toBeDefined();
    });
    it('RFC 7523 §3 item 5: refuses an nbf in the future', async () => {
      expect((await refusal(authenticateClient(await form({ nbf: clock.seconds + 31 }), deps))).description).toBe('client_assertion is not yet valid');
    });
    it('RFC 7523 §3 item 6: accepts iat within the skew', async () => {
      await expect(authenticateClient(await form({ iat: clock.seconds + 30 }), deps)).resolves.toBeDefined();
    });
    it('RFC 7523 §3 item 6: refuses an iat in the future', async () => {
      expect((await refusal(authenticateClient(await form({ iat: clock.seconds + 31 }), deps))).description).toBe('client_assertion iat is in the future');
    });
    it('RFC 7523 §3 item 6: refuses an iat unreasonably far in the past', async () => {
      expect((await refusal(authenticateClient(await form({ iat: clock.seconds - 331 }), deps))).description).toBe('client_assertion is too old');
    });
  });

  describe('jti single use (RFC 7523 §3 item 7) on the real embedded store', () => {
    it('RFC 7523 §3 item 7: accepts a fresh jti and records it on its own stream with expected revision no_stream', async () => {
      const request = await form({ jti: 'jti-1' });
      await authenticateClient(request, deps);
      const events = [];
      for await (const event of storeHandle.store.readStream(jtiStreamName('client_assertion', 'agent-es', 'jti-1'))) events.push(event);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        type: 'ClientAssertionUsed',
        data: { scope: 'agent-es', jti: 'jti-1', client_id: 'agent-es', expires_at: new Date((clock.seconds + 60 + 30) * 1000).toISOString() },
        metadata: { occurred_at: clock.now().toISOString(), actor: { id: 'agent-es', role: 'client' } },
      });
      await expect(storeHandle.store.appendToStream(events[0]!.streamName, [{ type: 'ClientAssertionUsed', data: {} }], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    });
    it('RFC 7523 §3 item 7: refuses a replayed assertion, also after a restart', async () => {
      const request = await form();
      await authenticateClient(request, deps);
      expect((await refusal(authenticateClient(request, deps))).description).toBe('client_assertion was already used');
      const restarted = await storeHandle.restart();
      await refusal(authenticateClient(request, { ...deps, jtis: new EventStoreJtiRegistry(restarted, clock) }));
    });
    it('RFC 7523 §3 item 7: of concurrent replays exactly one wins', async () => {
      const request = await form();
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => authenticateClient(request, deps)));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((result) => result.status === 'rejected').every((result) => (result as PromiseRejectedResult).reason instanceof InvalidClientError)).toBe(true);
    });
    it('RFC 7523 §3 item 7: the same jti from two different clients is not a replay', async () => {
      await authenticateClient(await form({ jti: 'shared' }), deps);
      await expect(authenticateClient(await form({ jti: 'shared' }, { key: edKey, clientId: 'agent-ed' }), deps)).resolves.toBeDefined();
    });
    it('RFC 7523 §3 item 7: an assertion failing another check does not burn its jti', async () => {
      await refusal(authenticateClient(await form({ jti: 'kept', aud: `${ISSUER}/token` }), deps));
      await expect(authenticateClient(await form({ jti: 'kept' }), deps)).resolves.toBeDefined();
    });
  });
});

import { contentDigest, type HttpHeaders } from '@mission/http-signatures';
import { principalRegistry } from '@mission/signature-key';
import { AgentProviderKeys } from './agent-provider-keys.js';
import {
  contentDigestMatchesBody,
  createdWithinWindow,
  requestHasBody,
  requiredComponentsCovered,
  signatureFieldsLabelledSig,
  signatureVerifies,
  signedMessage,
  signingKeyFromSignatureKey,
  type IncomingSignedRequest,
  type KeySources,
} from './authentication-rules.js';
import { signatureNotReplayed } from './signature-not-replayed.js';
import {
  ALICE_KEY,
  AGENT,
  BASE_URL,
  NOW_SECONDS,
  TestClock,
  agentRequest,
  demoConfig,
  freshKey,
  hwkSignatureKey,
  principalKey,
  signedRequest,
} from '../testing/signed-request.spec-helper.js';
import { EventStoreUnavailableError, type EventStore, type RecordedEvent } from '@mission/event-store';
import { openTempEmbeddedStore, type TempEmbeddedStore } from '@mission/event-store/testing';
import { SignatureReplayCache, signatureIdentity } from './signature-replay-cache.js';
import { SIGNATURE_USED, signatureClaimStreamName, StoredSignatureClaims } from './stored-signature-claims.js';

/** The `Signature-Error` reason a synchronous or asynchronous rule refused with. */
async function refusal(rule: () => unknown): Promise<string> {
  try {
    await rule();
  } catch (error) {
    const reason = (error as { reason?: unknown }).reason;
    if (typeof reason === 'string') return reason;
    throw error;
  }
  throw new Error('expected the rule to refuse');
}

const clock = new TestClock();
const alice = principalKey(ALICE_KEY);
const sources = (): KeySources => ({
  principals: principalRegistry(demoConfig.principals),
  agentProviders: new AgentProviderKeys(demoConfig.agent_providers),
  clock,
});

describe('signedMessage (DESIGN 3.2: @authority is the PS BASE_URL, @path the origin-form target)', () => {
  const base: IncomingSignedRequest = { method: 'POST', originalUrl: '/mission?a=1', headers: {} };

  it('DESIGN 3.2: passes an origin-form target under the BASE_URL origin', () => {
    expect(signedMessage(base, BASE_URL).url).toBe('https://ps.example/mission?a=1');
  });

  it.each(['https://evil.example/mission', '//evil.example/mission', '*', 'mission'])('DESIGN 3.2: refuses the target %s', async (target) => {
    await expect(refusal(() => signedMessage({ ...base, originalUrl: target }, BASE_URL))).resolves.toBe('invalid_target');
  });
});

describe('requestHasBody (DESIGN 3.2: body components are required "whenever there is a body")', () => {
  it('DESIGN 3.2: bytes, a non-zero Content-Length or chunked framing mean a body; none of them, no body', () => {
    expect(requestHasBody({ method: 'POST', originalUrl: '/', headers: {}, rawBody: Buffer.from('{}') })).toBe(true);
    expect(requestHasBody({ method: 'POST', originalUrl: '/', headers: { 'content-length': '5' } })).toBe(true);
    expect(requestHasBody({ method: 'POST', originalUrl: '/', headers: { 'transfer-encoding': 'chunked' } })).toBe(true);
    expect(requestHasBody({ method: 'POST', originalUrl: '/', headers: { 'content-length': '0' } })).toBe(false);
    expect(requestHasBody({ method: 'GET', originalUrl: '/', headers: {} })).toBe(false);
  });
});

describe('signatureFieldsLabelledSig (spec 5.1, DESIGN 3.2: Signature-Input and Signature with label sig)', () => {
  const input = '("@method" "@authority" "@path" "signature-key");created=1772366400';

  it('spec 5.1: passes with both fields labelled sig and returns components and created', () => {
    expect(signatureFieldsLabelledSig({ 'signature-input': `sig=${input}`, signature: 'sig=:AAAA:' }).input).toEqual({
      components: ['@method', '@authority', '@path', 'signature-key'],
      created: 1772366400,
    });
  });

  it.each<[string, HttpHeaders, string]>([
    ['no Signature', { 'signature-input': `sig=${input}` }, 'missing_signature'],
    ['no Signature-Input', { signature: 'sig=:AAAA:' }, 'missing_signature'],
    ['another label only', { 'signature-input': `other=${input}`, signature: 'other=:AAAA:' }, 'missing_signature'],
    ['an unparseable Signature-Input', { 'signature-input': 'sig=(((', signature: 'sig=:AAAA:' }, 'malformed_signature_input'],
    ['an unparseable Signature', { 'signature-input': `sig=${input}`, signature: 'sig=:AAAA' }, 'malformed_signature'],
    ['a repeated label', { 'signature-input': [`sig=${input}`, `sig=${input}`], signature: 'sig=:AAAA:' }, 'duplicate_label'],
    ['a non-list member', { 'signature-input': 'sig=1', signature: 'sig=:AAAA:' }, 'malformed_signature_input'],
  ])('spec 5.1: refuses %s', async (_case, headers, reason) => {
    await expect(refusal(() => signatureFieldsLabelledSig(headers))).resolves.toBe(reason);
  });
});

describe('requiredComponentsCovered (spec 5.1, DESIGN 3.2: "@method" "@authority" "@path" "signature-key" [+ "content-type" "content-digest"])', () => {
  const withoutBody = ['@method', '@authority', '@path', 'signature-key'];

  it('DESIGN 3.2: passes the four components without a body, the six with a body, and tolerates extras', () => {
    expect(() => requiredComponentsCovered({ components: withoutBody }, false)).not.toThrow();
    expect(() => requiredComponentsCovered({ components: [...withoutBody, 'content-type', 'content-digest', 'date'] }, true)).not.toThrow();
  });

  it.each([['@method'], ['@authority'], ['@path'], ['signature-key']])('DESIGN 3.2: refuses a signature without %s', async (missing) => {
    const components = withoutBody.filter((component) => component !== missing);
    await expect(refusal(() => requiredComponentsCovered({ components }, false))).resolves.toBe('missing_required_component');
  });

  it.each([['content-type'], ['content-digest']])('DESIGN 3.2: refuses a signature over a body without %s', async (missing) => {
    const components = [...withoutBody, 'content-type', 'content-digest'].filter((component) => component !== missing);
    await expect(refusal(() => requiredComponentsCovered({ components }, true))).resolves.toBe('missing_required_component');
  });
});

describe('createdWithinWindow (spec 5.6, DESIGN 3.2: created within ±60 s)', () => {
  it.each([[0], [-60], [60]])('DESIGN 3.2: passes created = now %+d s', (offset) => {
    expect(() => createdWithinWindow({ components: [], created: NOW_SECONDS + offset }, clock)).not.toThrow();
  });

  it.each([[-61], [61], [-3600]])('DESIGN 3.2: refuses created = now %+d s', async (offset) => {
    await expect(refusal(() => createdWithinWindow({ components: [], created: NOW_SECONDS + offset }, clock))).resolves.toBe('created_out_of_window');
  });

  it('DESIGN 3.2: refuses a signature without created, and one whose expires has passed', async () => {
    await expect(refusal(() => createdWithinWindow({ components: [] }, clock))).resolves.toBe('missing_created');
    await expect(refusal(() => createdWithinWindow({ components: [], created: NOW_SECONDS - 5, expires: NOW_SECONDS - 1 }, clock))).resolves.toBe('expired');
  });
});

describe('contentDigestMatchesBody (spec 5.6, DESIGN 3.2: Content-Digest sha-256 over the raw body)', () => {
  const body = Buffer.from('{"operation":"status"}');
  const request = (headers: HttpHeaders, rawBody?: Uint8Array): IncomingSignedRequest => ({
    method: 'POST',
    originalUrl: '/mission',
    headers,
    ...(rawBody !== undefined ? { rawBody } : {}),
  });

  it('RFC 9530: passes a matching sha-256 digest, and a request with neither body nor digest', () => {
    expect(() => contentDigestMatchesBody(request({ 'content-digest': contentDigest(body) }, body), true)).not.toThrow();
    expect(() => contentDigestMatchesBody(request({}), false)).not.toThrow();
  });

  it.each<[string, HttpHeaders, Uint8Array | undefined, boolean, string]>([
    ['a changed body', { 'content-digest': contentDigest(body) }, Buffer.from('{"operation":"terminate"}'), true, 'content_digest_mismatch'],
    ['a body without Content-Digest', {}, body, true, 'missing_content_digest'],
    ['a malformed Content-Digest', { 'content-digest': 'sha-256=abc' }, body, true, 'malformed_content_digest'],
    ['only an unknown algorithm', { 'content-digest': 'md5=:AAAA:' }, body, true, 'unsupported_digest_algorithm'],
    ['only sha-512 (DESIGN 3.2 asks for sha-256)', { 'content-digest': contentDigest(body, 'sha-512') }, body, true, 'unsupported_digest_algorithm'],
    ['a body no parser kept', { 'content-digest': contentDigest(body), 'content-length': '22' }, undefined, true, 'unreadable_body'],
    ['a digest of content on a request without a body', { 'content-digest': contentDigest(body) }, undefined, false, 'content_digest_mismatch'],
  ])('spec 5.6: refuses %s', async (_case, headers, rawBody, hasBody, reason) => {
    await expect(refusal(() => contentDigestMatchesBody(request(headers, rawBody), hasBody))).resolves.toBe(reason);
  });
});

describe('signingKeyFromSignatureKey (spec 5.1, 5.3, DESIGN 3.2: jwt → Agent Token, hwk → registered principal)', () => {
  it('DESIGN 3.2: passes an hwk key registered for a principal', async () => {
    const signingKey = await signingKeyFromSignatureKey({ 'signature-key': hwkSignatureKey(alice) }, sources());
    expect(signingKey.caller).toEqual({ kind: 'principal', id: 'alice', role: 'person', tenant: 't1', agents: [AGENT] });
    expect(signingKey.key.alg).toBe('ed25519');
  });

  it('spec 5.1: passes an Agent Token from the configured provider', async () => {
    const request = await agentRequest();
    const signingKey = await signingKeyFromSignatureKey(request.headers, sources());
    expect(signingKey.caller).toMatchObject({ kind: 'agent', agent: AGENT });
  });

  it.each<[string, string, string]>([
    ['no Signature-Key', '', 'missing_signature_key'],
    ['a malformed Signature-Key', 'sig=("x"', 'malformed_signature_key'],
    ['an unknown scheme', 'sig=x509;x5u="https://x.example"', 'unsupported_scheme'],
    ['a jwt that is not a JWS', 'sig=jwt;jwt="abc"', 'malformed_signature_key'],
    ['an hwk with private key material', 'sig=hwk;kty="OKP";crv="Ed25519";x="SqRugpHHGqR7nX6OLhWTiD53SBvkINIdGFkLVpqedj4";d="gXZwkmwlj0oROZ5cDo2ycT5h6TS5RcZO_Z_c9viSVNs"', 'invalid_key'],
  ])('spec 5.1: refuses %s', async (_case, value, reason) => {
    const headers: HttpHeaders = value === '' ? {} : { 'signature-key': value };
    await expect(refusal(() => signingKeyFromSignatureKey(headers, sources()))).resolves.toBe(reason);
  });

  it('DESIGN 3.2: refuses an hwk key no principal registered', async () => {
    const stranger = await freshKey();
    await expect(refusal(() => signingKeyFromSignatureKey({ 'signature-key': hwkSignatureKey(stranger) }, sources()))).resolves.toBe('unknown_key');
  });
});

describe('signatureVerifies (RFC 9421 §3.2, spec 5.1)', () => {
  it('RFC 9421: passes a signature made with the resolved key', async () => {
    const request = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice) });
    const signingKey = await signingKeyFromSignatureKey(request.headers, sources());
    await expect(signatureVerifies(signedMessage(request, BASE_URL), signingKey, false, clock)).resolves.toMatchObject({ label: 'sig' });
  });

  it('RFC 9421: refuses a signature made with another key', async () => {
    const other = await freshKey();
    const request = signedRequest({ key: other, signatureKey: hwkSignatureKey(alice) });
    const signingKey = await signingKeyFromSignatureKey(request.headers, sources());
    await expect(refusal(() => signatureVerifies(signedMessage(request, BASE_URL), signingKey, false, clock))).resolves.toBe('invalid_signature');
  });
});

describe('signatureNotReplayed (spec 5.6, DESIGN 3.2: replay cache on the signature for its window)', () => {
  it('DESIGN 3.2: passes the first use and refuses the second within the window', async () => {
    const request = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice) });
    const signingKey = await signingKeyFromSignatureKey(request.headers, sources());
    const verified = await signatureVerifies(signedMessage(request, BASE_URL), signingKey, false, clock);
    const cache = new SignatureReplayCache();
    await expect(signatureNotReplayed(verified, signingKey, cache, clock)).resolves.toBeUndefined();
    await expect(refusal(() => signatureNotReplayed(verified, signingKey, cache, clock))).resolves.toBe('replayed_signature');
  });

  it('DESIGN 3.2: a full cache fails closed with 503, never forgetting a live signature', async () => {
    const request = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice) });
    const signingKey = await signingKeyFromSignatureKey(request.headers, sources());
    const verified = await signatureVerifies(signedMessage(request, BASE_URL), signingKey, false, clock);
    const cache = new SignatureReplayCache({ maxEntries: 1 });
    cache.remember('someone-else', clock.now().getTime() + 60_000, clock.now().getTime());
    await expect(signatureNotReplayed(verified, signingKey, cache, clock)).rejects.toEqual(expect.objectContaining({ status: 503, code: 'temporarily_unavailable' }));
  });

  describe('claims in the event store (issue 12 defect 8, spec 5.6)', () => {
    let temp: TempEmbeddedStore;
    beforeEach(async () => (temp = await openTempEmbeddedStore('ps-claims-')));
    afterEach(async () => temp.dispose());

    const verifiedRequest = async () => {
      const request = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), nonce: `n-${Math.random()}` });
      const signingKey = await signingKeyFromSignatureKey(request.headers, sources());
      return { signingKey, verified: await signatureVerifies(signedMessage(request, BASE_URL), signingKey, false, clock) };
    };

    it('spec 5.6: a signature accepted by one replica is refused by another replica on the same store, and after a restart', async () => {
      const { signingKey, verified } = await verifiedRequest();
      await signatureNotReplayed(verified, signingKey, new SignatureReplayCache(), clock, 60, new StoredSignatureClaims(temp.store));
      // Another replica: its own empty in-memory cache, the same store.
      await expect(refusal(() => signatureNotReplayed(verified, signingKey, new SignatureReplayCache(), clock, 60, new StoredSignatureClaims(temp.store)))).resolves.toBe('replayed_signature');
      const restarted = await temp.restart();
      await expect(refusal(() => signatureNotReplayed(verified, signingKey, new SignatureReplayCache(), clock, 60, new StoredSignatureClaims(restarted)))).resolves.toBe('replayed_signature');
    });

    it('spec 5.6: two replicas racing on one signature: exactly one accepts it', async () => {
      const { signingKey, verified } = await verifiedRequest();
      const outcomes = await Promise.allSettled(
        [1, 2, 3].map(() => signatureNotReplayed(verified, signingKey, new SignatureReplayCache(), clock, 60, new StoredSignatureClaims(temp.store))),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    });

    it('spec 5.6: the claim holds the signature identity and window only — never the signature or the request', async () => {
      const { signingKey, verified } = await verifiedRequest();
      await signatureNotReplayed(verified, signingKey, new SignatureReplayCache(), clock, 60, new StoredSignatureClaims(temp.store));
      const identity = signatureIdentity(signingKey.key.alg, verified.signature);
      const stored: RecordedEvent[] = [];
      for await (const event of temp.store.readStream(signatureClaimStreamName(identity))) stored.push(event);
      expect(stored.map(({ type, data }) => ({ type, data }))).toEqual([{ type: SIGNATURE_USED, data: { valid_until: new Date((NOW_SECONDS + 61) * 1000).toISOString() } }]);
      expect(JSON.stringify(stored.map(({ data, metadata }) => ({ data, metadata })))).not.toContain(Buffer.from(verified.signature).toString('base64'));
    });

    it('spec 5.6: when the store cannot record the claim the request fails closed with 503', async () => {
      const { signingKey, verified } = await verifiedRequest();
      const down = { appendToStream: () => Promise.reject(new EventStoreUnavailableError('down')) } as unknown as EventStore;
      await expect(signatureNotReplayed(verified, signingKey, new SignatureReplayCache(), clock, 60, new StoredSignatureClaims(down))).rejects.toEqual(
        expect.objectContaining({ status: 503, code: 'temporarily_unavailable' }),
      );
    });
  });
});

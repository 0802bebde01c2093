import { generateKeyPairSync } from 'node:crypto';
import { contentDigest } from './content-digest.js';
import { HttpSignatureError } from './http-signature-error.js';
import type { HttpRequest } from './http-message.js';
import { parseSignatureField } from './parse-signature-fields.js';
import { signRequest } from './sign-request.js';
import { verifyRequestSignature, type VerifyRequestSignatureOptions } from './verify-request-signature.js';
import {
  publicJwk,
  testKeyEccP256,
  testKeyEd25519,
  testRequest,
  testResponse,
} from './rfc9421-vectors.spec-helper.js';

const RFC_CREATED = 1618884473;
const atRfcTime = { now: () => new Date(RFC_CREATED * 1000) };

const B26_COMPONENTS = ['date', '@method', '@path', '@authority', 'content-type', 'content-length'];
const B26_SIGNATURE_INPUT =
  'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"';
const B26_SIGNATURE =
  'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:';
const B26_BASE = [
  '"date": Tue, 20 Apr 2021 02:07:55 GMT',
  '"@method": POST',
  '"@path": /foo',
  '"@authority": example.com',
  '"content-type": application/json',
  '"content-length": 18',
  '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
].join('\n');

const B24_SIGNATURE_INPUT =
  'sig-b24=("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"';
const B24_SIGNATURE =
  'sig-b24=:wNmSUAhwb5LxtOtOpNa6W5xj067m5hFrj0XQ4fvpaCLx0NKocgPquLgyahnzDnDAUy5eCdlYUEkLIj+32oiasw==:';

const ed25519Key = { alg: 'ed25519' as const, publicKey: publicJwk(testKeyEd25519) };
const p256Key = { alg: 'ecdsa-p256-sha256' as const, publicKey: publicJwk(testKeyEccP256) };

function b26Options(overrides: Partial<VerifyRequestSignatureOptions> = {}): VerifyRequestSignatureOptions {
  return {
    label: 'sig-b26',
    requiredComponents: ['@method', '@authority', '@path'],
    maxAgeSeconds: 60,
    clock: atRfcTime,
    resolveKey: (params) => (params.keyid === 'test-key-ed25519' ? ed25519Key : undefined),
    ...overrides,
  };
}

function withHeaders(request: HttpRequest, headers: Record<string, string | string[]>): HttpRequest {
  return { ...request, headers: { ...request.headers, ...headers } };
}

const b26Request = withHeaders(testRequest, { 'Signature-Input': B26_SIGNATURE_INPUT, Signature: B26_SIGNATURE });

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpSignatureError) return error.reason;
    throw error;
  }
  throw new Error('expected an HttpSignatureError');
}

describe('RFC 9421 Appendix B.2.6: ed25519 (deterministic, byte-for-byte)', () => {
  it('RFC 9421 Appendix B.2.6: signRequest reproduces the base, Signature-Input and Signature exactly', () => {
    const signed = signRequest(testRequest, {
      label: 'sig-b26',
      components: B26_COMPONENTS,
      params: { created: RFC_CREATED, keyid: 'test-key-ed25519' },
      alg: 'ed25519',
      privateKey: testKeyEd25519,
    });
    expect(signed.base).toBe(B26_BASE);
    expect(signed['signature-input']).toBe(B26_SIGNATURE_INPUT);
    expect(signed.signature).toBe(B26_SIGNATURE);
  });

  it('RFC 9421 Appendix B.2.6 / §3.2: the RFC signature verifies with the B.1.4 public key', async () => {
    const verified = await verifyRequestSignature(b26Request, b26Options());
    expect(verified.label).toBe('sig-b26');
    expect(verified.components).toEqual(B26_COMPONENTS);
    expect(verified.params).toEqual({ created: RFC_CREATED, keyid: 'test-key-ed25519' });
    expect(verified.signature).toHaveLength(64);
  });
});

describe('RFC 9421 Appendix B.2.4: ecdsa-p256-sha256 (randomized)', () => {
  const b24Response = {
    ...testResponse,
    headers: { ...testResponse.headers, 'Signature-Input': B24_SIGNATURE_INPUT, Signature: B24_SIGNATURE },
  };
  const b24Options: VerifyRequestSignatureOptions = {
    label: 'sig-b24',
    requiredComponents: ['@status', 'content-digest'],
    maxAgeSeconds: 60,
    clock: atRfcTime,
    resolveKey: () => p256Key,
  };

  it('RFC 9421 Appendix B.2.4 / §3.3.4: the RFC r||s signature verifies with the B.1.3 public key', async () => {
    const verified = await verifyRequestSignature(b24Response, b24Options);
    expect(verified.components).toEqual(['@status', 'content-type', 'content-digest', 'content-length']);
  });

  it('RFC 9421 §3.3.4: a fresh signature is 64 raw bytes and round-trips', async () => {
    const signed = signRequest(testResponse, {
      label: 'sig-b24',
      components: ['@status', 'content-type', 'content-digest', 'content-length'],
      params: { created: RFC_CREATED, keyid: 'test-key-ecc-p256' },
      alg: 'ecdsa-p256-sha256',
      privateKey: testKeyEccP256,
    });
    expect(signed['signature-input']).toBe(B24_SIGNATURE_INPUT);
    expect(Buffer.from(signed.signature.slice('sig-b24=:'.length, -1), 'base64')).toHaveLength(64);
    const fields = { 'signature-input': signed['signature-input'], signature: signed.signature };
    const response = { ...testResponse, headers: { ...testResponse.headers, ...fields } };
    await expect(verifyRequestSignature(response, b24Options)).resolves.toBeDefined();
  });

  it('RFC 9421 §3.3.4: an altered ECDSA signature is refused', async () => {
    const altered = B24_SIGNATURE.replace('wNmSUAhw', 'wNmSUAhx');
    const response = { ...testResponse, headers: { ...b24Response.headers, Signature: altered } };
    expect(await reasonOf(verifyRequestSignature(response, b24Options))).toBe('invalid_signature');
  });
});

describe('verifyRequestSignature (RFC 9421 §3.2) with the DESIGN 3.2 profile', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const body = '{"operation":"status"}';
  const now = new Date('2026-01-01T00:00:00Z');
  const created = Math.floor(now.getTime() / 1000);
  const unsigned: HttpRequest = {
    method: 'POST',
    url: 'https://ps.example:443/mission',
    headers: {
      'content-type': 'application/json',
      'content-digest': contentDigest(body),
      'signature-key': 'sig=hwk;kty="OKP";crv="Ed25519";x="abc"',
      'x-extra': 'present',
    },
  };
  const required = ['@method', '@authority', '@path', 'signature-key', 'content-type', 'content-digest'];
  const options: VerifyRequestSignatureOptions = {
    label: 'sig',
    requiredComponents: required,
    maxAgeSeconds: 60,
    clock: { now: () => now },
    resolveKey: () => ({ alg: 'ed25519', publicKey }),
  };
  function signed(
    components: readonly string[] = required,
    params: Parameters<typeof signRequest>[1]['params'] = { created, keyid: 'k' },
    request: HttpRequest = unsigned,
  ): HttpRequest {
    const fields = signRequest(request, { label: 'sig', components, params, alg: 'ed25519', privateKey });
    return withHeaders(request, { 'signature-input': fields['signature-input'], signature: fields.signature });
  }

  it('DESIGN 3.2: accepts the required components plus extra covered components that are present', async () => {
    const verified = await verifyRequestSignature(signed([...required, 'x-extra']), options);
    expect(verified.components).toContain('x-extra');
    expect(verified.params).toEqual({ created, keyid: 'k' });
  });

  it('RFC 9421 §3.2 step 4: a required component that is not covered → missing_required_component', async () => {
    const request = signed(required.filter((c) => c !== 'content-digest'));
    expect(await reasonOf(verifyRequestSignature(request, options))).toBe('missing_required_component');
  });

  it('RFC 9421 §3.2: a tampered covered header → invalid_signature', async () => {
    const request = withHeaders(signed(), { 'content-digest': contentDigest('{"operation":"terminate"}') });
    expect(await reasonOf(verifyRequestSignature(request, options))).toBe('invalid_signature');
  });

  it('RFC 9421 §3.2: a tampered derived component (@path) → invalid_signature', async () => {
    const request = { ...signed(), url: 'https://ps.example/mission/other' };
    expect(await reasonOf(verifyRequestSignature(request, options))).toBe('invalid_signature');
  });

  it('RFC 9421 §2.5: a covered header removed after signing → missing_component', async () => {
    const request = signed([...required, 'x-extra']);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => name !== 'x-extra'));
    expect(await reasonOf(verifyRequestSignature({ ...request, headers }, options))).toBe('missing_component');
  });

  it('RFC 9421 §3.2 step 6 / §2.3 created: outside ±maxAge → created_out_of_window (past and future)', async () => {
    expect(await reasonOf(verifyRequestSignature(signed(required, { created: created - 61 }), options))).toBe(
      'created_out_of_window',
    );
    expect(await reasonOf(verifyRequestSignature(signed(required, { created: created + 61 }), options))).toBe(
      'created_out_of_window',
    );
    await expect(verifyRequestSignature(signed(required, { created: created - 60 }), options)).resolves.toBeDefined();
  });

  it('RFC 9421 §2.3 expires: a passed expires → expired; missing created → missing_created', async () => {
    const expired = signed(required, { created: created - 10, expires: created - 1 });
    expect(await reasonOf(verifyRequestSignature(expired, options))).toBe('expired');
    expect(await reasonOf(verifyRequestSignature(signed(required, { keyid: 'k' }), options))).toBe('missing_created');
  });

  it('RFC 9421 §3.2: a signature from another key → invalid_signature; no key → unknown_key', async () => {
    const other = generateKeyPairSync('ed25519').publicKey;
    const request = signed();
    expect(await reasonOf(verifyRequestSignature(request, { ...options, resolveKey: () => ({ alg: 'ed25519', publicKey: other }) }))).toBe(
      'invalid_signature',
    );
    expect(await reasonOf(verifyRequestSignature(request, { ...options, resolveKey: async () => undefined }))).toBe(
      'unknown_key',
    );
  });

  it('RFC 9421 §3.2: alg parameter or key type not matching the resolved key → algorithm_mismatch', async () => {
    const withAlg = signed(required, { created, alg: 'ecdsa-p256-sha256' });
    expect(await reasonOf(verifyRequestSignature(withAlg, options))).toBe('algorithm_mismatch');
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    const wrongType = { ...options, resolveKey: () => ({ alg: 'ed25519' as const, publicKey: p256 }) };
    expect(await reasonOf(verifyRequestSignature(signed(), wrongType))).toBe('algorithm_mismatch');
  });

  it('RFC 9421 §4.1: a malformed Signature-Input → malformed_signature_input', async () => {
    for (const value of ['sig=("@method" "@path"', 'sig="not-an-inner-list"', 'sig=(@method);created=1', 'sig=("@method");created="x"']) {
      const request = withHeaders(signed(), { 'signature-input': value });
      expect(await reasonOf(verifyRequestSignature(request, options))).toBe('malformed_signature_input');
    }
  });

  it('RFC 9421 §4.2: a Signature member that is not a Byte Sequence → malformed_signature', async () => {
    const request = withHeaders(signed(), { signature: 'sig="abc"' });
    expect(await reasonOf(verifyRequestSignature(request, options))).toBe('malformed_signature');
  });

  it('RFC 9421 §4.1 / RFC 8941 §3.2: a duplicate label (one or several field lines) → duplicate_label', async () => {
    const request = signed();
    const input = request.headers['signature-input'] as string;
    const signature = request.headers['signature'] as string;
    const dupInput = withHeaders(request, { 'signature-input': `${input}, ${input.replace(`created=${created}`, 'created=1')}` });
    expect(await reasonOf(verifyRequestSignature(dupInput, options))).toBe('duplicate_label');
    const dupSignature = withHeaders(request, { signature: [signature, signature] });
    expect(await reasonOf(verifyRequestSignature(dupSignature, options))).toBe('duplicate_label');
  });

  it('attacker: a label repeated after a Display String parameter holding a backslash (RFC 9651 §3.3.8) → duplicate_label', async () => {
    const request = signed();
    const input = request.headers['signature-input'] as string;
    const signature = request.headers['signature'] as string;
    // Dictionary parsing keeps only the last `sig`; an intermediary reading the first would see another signature.
    const hidden = withHeaders(request, { 'signature-input': `${input};note=%"\\", ${input.replace(`created=${created}`, 'created=1')}` });
    expect(await reasonOf(verifyRequestSignature(hidden, options))).toBe('duplicate_label');
    const hiddenSignature = withHeaders(request, { signature: `${signature};note=%"\\", ${signature}` });
    expect(await reasonOf(verifyRequestSignature(hiddenSignature, options))).toBe('duplicate_label');
  });

  it('RFC 9421 §3.2: other labels are ignored; a missing label or missing fields → missing_signature', async () => {
    const request = signed();
    const both = withHeaders(request, {
      'signature-input': `other=("@method");created=1, ${request.headers['signature-input'] as string}`,
      signature: `other=:AAAA:, ${request.headers['signature'] as string}`,
    });
    await expect(verifyRequestSignature(both, options)).resolves.toBeDefined();
    expect(await reasonOf(verifyRequestSignature(request, { ...options, label: 'nope' }))).toBe('missing_signature');
    expect(await reasonOf(verifyRequestSignature(unsigned, options))).toBe('missing_signature');
  });

  it('RFC 9421 §2.1: component parameters (;sf, ;req, ;bs) are refused as unsupported', async () => {
    const request = withHeaders(signed(), {
      'signature-input': `sig=("@method" "@authority" "@path" "signature-key";sf "content-type" "content-digest");created=${created}`,
    });
    expect(await reasonOf(verifyRequestSignature(request, options))).toBe('unsupported_component');
  });

  it('HttpSignatureError: reason is a short token fit for a Signature-Error header', async () => {
    const error = await verifyRequestSignature(unsigned, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpSignatureError);
    expect((error as HttpSignatureError).reason).toMatch(/^[a-z_]+$/);
  });
});

describe('verifyRequestSignature with the fields parsed by the caller (issue 15: Signature-Input and Signature parsed once)', () => {
  const parsedFrom = (inputs: string, signatures: string) => ({
    inputs: parseSignatureField([inputs], 'malformed_signature_input'),
    signatures: parseSignatureField([signatures], 'malformed_signature'),
  });

  it('RFC 9421 §3.2: verifies the message with the fields as given, exactly as when it parses them itself', async () => {
    const own = await verifyRequestSignature(b26Request, b26Options());
    const given = await verifyRequestSignature(b26Request, b26Options({ fields: parsedFrom(B26_SIGNATURE_INPUT, B26_SIGNATURE) }));
    expect(given).toEqual(own);
  });

  it('RFC 9421 §3.2: checks the given fields, not the headers — a signature value altered in them does not verify', async () => {
    const altered = B26_SIGNATURE.replace(':wqcA', ':wqcB');
    await expect(reasonOf(verifyRequestSignature(b26Request, b26Options({ fields: parsedFrom(B26_SIGNATURE_INPUT, altered) })))).resolves.toBe('invalid_signature');
  });
});

import { HttpSignatureError } from './http-signature-error.js';
import { signatureBase } from './signature-base.js';
import { testRequest, testResponse } from './rfc9421-vectors.spec-helper.js';

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof HttpSignatureError) return error.reason;
    throw error;
  }
  throw new Error('expected an HttpSignatureError');
}

describe('signatureBase (RFC 9421 §2.5)', () => {
  it('RFC 9421 Appendix B.2.1: minimal signature base (RSA-PSS signature itself not exercised)', () => {
    expect(
      signatureBase(testRequest, [], { created: 1618884473, keyid: 'test-key-rsa-pss', nonce: 'b3k2pp5k7z-50gnwp.yemd' }),
    ).toBe('"@signature-params": ();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"');
  });

  it('RFC 9421 Appendix B.2.3: full coverage base including @query (RSA-PSS signature not exercised)', () => {
    const components = ['date', '@method', '@path', '@query', '@authority', 'content-type', 'content-digest', 'content-length'];
    expect(signatureBase(testRequest, components, { created: 1618884473, keyid: 'test-key-rsa-pss' })).toBe(
      [
        '"date": Tue, 20 Apr 2021 02:07:55 GMT',
        '"@method": POST',
        '"@path": /foo',
        '"@query": ?param=Value&Pet=dog',
        '"@authority": example.com',
        '"content-type": application/json',
        '"content-digest": sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
        '"content-length": 18',
        '"@signature-params": ("date" "@method" "@path" "@query" "@authority" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-rsa-pss"',
      ].join('\n'),
    );
  });

  it('RFC 9421 Appendix B.2.4: response base with @status', () => {
    const components = ['@status', 'content-type', 'content-digest', 'content-length'];
    expect(signatureBase(testResponse, components, { created: 1618884473, keyid: 'test-key-ecc-p256' })).toBe(
      [
        '"@status": 200',
        '"content-type": application/json',
        '"content-digest": sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:',
        '"content-length": 23',
        '"@signature-params": ("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"',
      ].join('\n'),
    );
  });

  it('RFC 9421 §2.2: derived components of a request', () => {
    const request = { method: 'GET', url: 'HTTPS://WWW.Example.com:443/path?param=value#frag', headers: {} };
    const components = ['@method', '@authority', '@scheme', '@target-uri', '@request-target', '@path', '@query'];
    expect(signatureBase(request, components, {}).split('\n')).toEqual([
      '"@method": GET',
      '"@authority": www.example.com',
      '"@scheme": https',
      '"@target-uri": https://www.example.com/path?param=value',
      '"@request-target": /path?param=value',
      '"@path": /path',
      '"@query": ?param=value',
      '"@signature-params": ("@method" "@authority" "@scheme" "@target-uri" "@request-target" "@path" "@query")',
    ]);
  });

  it('RFC 9421 §2.2.3 / §2.2.7: non-default port kept, absent query is "?"', () => {
    const request = { method: 'POST', url: 'http://Example.com:8080', headers: {} };
    expect(signatureBase(request, ['@authority', '@path', '@query'], {}).split('\n').slice(0, 3)).toEqual([
      '"@authority": example.com:8080',
      '"@path": /',
      '"@query": ?',
    ]);
  });

  it('RFC 9421 §2.1: field values trimmed, multiple field lines combined with ", ", names case-insensitive', () => {
    const request = {
      method: 'GET',
      url: 'https://example.com/',
      headers: { 'Cache-Control': ['  max-age=60 ', '   must-revalidate'], 'X-Folded': 'a\r\n  b', 'x-empty': '' },
    };
    expect(signatureBase(request, ['cache-control', 'x-folded', 'x-empty'], {}).split('\n').slice(0, 3)).toEqual([
      '"cache-control": max-age=60, must-revalidate',
      '"x-folded": a b',
      '"x-empty": ',
    ]);
  });

  it('RFC 9421 §2.3: signature parameters in the given order', () => {
    const params = { created: 1, expires: 2, keyid: 'k', alg: 'ed25519', nonce: 'n', tag: 't' };
    expect(signatureBase(testRequest, ['@method'], params).split('\n')[1]).toBe(
      '"@signature-params": ("@method");created=1;expires=2;keyid="k";alg="ed25519";nonce="n";tag="t"',
    );
  });

  it('RFC 9421 §2.5: an absent covered field is refused', () => {
    expect(reasonOf(() => signatureBase(testRequest, ['signature-key'], {}))).toBe('missing_component');
  });

  it('RFC 9421 §2.5: a duplicate covered component is refused', () => {
    expect(reasonOf(() => signatureBase(testRequest, ['@method', 'date', '@method'], {}))).toBe('duplicate_component');
  });

  it('RFC 9421 §2.2: unsupported or misplaced derived components are refused', () => {
    expect(reasonOf(() => signatureBase(testRequest, ['@query-param'], {}))).toBe('unsupported_component');
    expect(reasonOf(() => signatureBase(testRequest, ['@status'], {}))).toBe('unsupported_component');
    expect(reasonOf(() => signatureBase(testResponse, ['@method'], {}))).toBe('unsupported_component');
    expect(reasonOf(() => signatureBase(testRequest, ['@signature-params'], {}))).toBe('unsupported_component');
    expect(reasonOf(() => signatureBase(testRequest, ['Date'], {}))).toBe('unsupported_component');
  });

  it('RFC 9421 §2.3: unknown or mistyped parameters are refused', () => {
    expect(reasonOf(() => signatureBase(testRequest, [], { created: 1.5 }))).toBe('unsupported_parameter');
    expect(reasonOf(() => signatureBase(testRequest, [], { bogus: 'x' } as never))).toBe('unsupported_parameter');
  });
});

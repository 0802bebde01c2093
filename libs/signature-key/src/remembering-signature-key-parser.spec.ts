import fc from 'fast-check';
import { parseSignatureKey } from './parse-signature-key.js';
import { rememberingSignatureKeyParser } from './remembering-signature-key-parser.js';
import { SignatureKeyError } from './signature-key-error.js';

const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln';
const OTHER_JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJiIn0.b3RoZXI';
const HWK = 'sig=hwk;kty="OKP";crv="Ed25519";x="11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"';

/** The outcome of one parse: the value, or the refusal's reason. */
function outcome(run: () => unknown): unknown {
  try {
    return { parsed: run() };
  } catch (error) {
    if (error instanceof SignatureKeyError) return { refused: error.reason };
    throw error;
  }
}

/** Fields near the grammar: valid members, labels, schemes, broken quoting, repeats and junk. */
const fields = fc
  .array(
    fc.oneof(
      fc.constantFrom(`sig=jwt;jwt="${JWT}"`, `sig=jwt;jwt="${OTHER_JWT}"`, HWK, 'sig=jwks_uri;id="https://a.example";dwk="aauth-agent.json";kid="k1"', 'other=jwt;jwt="x.y.z"'),
      fc.constantFrom('sig=jwt;jwt="not a jws"', 'sig=unknown', 'sig=hwk;kty="RSA"', 'sig="string"', 'sig=jwt;jwt=', '', ' ', 'sig=jwt;jwt="'),
      fc.string({ maxLength: 40 }),
    ),
    { minLength: 0, maxLength: 3 },
  )
  .map((members) => members.join(', '));

describe('rememberingSignatureKeyParser (issue 15: Signature-Key parsed once per distinct field, DESIGN 3.2)', () => {
  it('DESIGN 3.2: gives what parseSignatureKey gives — value or refusal reason — on the first and every later call', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fields, fc.constantFrom('sig', 'other')), { minLength: 1, maxLength: 12 }), (calls) => {
        const remembering = rememberingSignatureKeyParser(4);
        // Each field twice and in the order given, so hits, misses and evictions all happen.
        for (const [field, label] of [...calls, ...calls]) {
          expect(outcome(() => remembering(field, label))).toEqual(outcome(() => parseSignatureKey(field, label)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('remembers a parse by the exact field and label: the same field under another label is parsed for that label', () => {
    const remembering = rememberingSignatureKeyParser();
    const field = `sig=jwt;jwt="${JWT}", other=jwt;jwt="${OTHER_JWT}"`;
    expect(remembering(field, 'sig')).toEqual({ scheme: 'jwt', jwt: JWT });
    expect(remembering(field, 'other')).toEqual({ scheme: 'jwt', jwt: OTHER_JWT });
    expect(remembering([`sig=jwt;jwt="${JWT}"`, `other=jwt;jwt="${OTHER_JWT}"`], 'other')).toEqual({ scheme: 'jwt', jwt: OTHER_JWT });
  });

  it('hands out frozen results, so a caller that alters one cannot change what the next request gets', () => {
    const remembering = rememberingSignatureKeyParser();
    const first = remembering(HWK);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.scheme === 'hwk' && Object.isFrozen(first.key)).toBe(true);
    expect(() => {
      (first as { scheme: string }).scheme = 'jwt';
    }).toThrow(TypeError);
    expect(remembering(HWK)).toEqual(parseSignatureKey(HWK));
  });

  it('never remembers a refusal: a refused field is refused again with its reason', () => {
    const remembering = rememberingSignatureKeyParser();
    for (let round = 0; round < 2; round++) expect(outcome(() => remembering('sig=unknown'))).toEqual({ refused: 'unsupported_scheme' });
  });

  it('stays bounded: the least recently used field is dropped, and fields over 4 KiB are parsed every time', () => {
    const remembering = rememberingSignatureKeyParser(2);
    const a = `sig=jwt;jwt="${JWT}"`;
    const first = remembering(a);
    expect(remembering(a)).toBe(first);
    remembering(`sig=jwt;jwt="${OTHER_JWT}"`);
    remembering(HWK);
    // `a` was the least recently used of three fields in a cache of two: parsed again, a new (equal) object.
    const again = remembering(a);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);

    const long = `sig=jwt;jwt="${JWT}", ${'x'.repeat(4100)}=1`;
    expect(remembering(long)).not.toBe(remembering(long));
  });
});

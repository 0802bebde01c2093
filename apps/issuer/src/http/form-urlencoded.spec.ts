import fc from 'fast-check';
import { formPairs } from './form-urlencoded.js';

/** What OAuthForm did before: URLSearchParams over the body read as UTF-8. */
const whatwg = (body: string): Array<[string, string]> => [...new URLSearchParams(Buffer.from(body).toString('utf8'))];
const pairsOf = (body: string): Array<[string, string]> => formPairs(Buffer.from(body));

// Characters that matter to the format, escapes (valid, truncated, of invalid UTF-8, of surrogates) and non-ASCII text.
const piece = fc.constantFrom(
  '?', 'a', 'b', '=', '&', '+', '%', '%2', '%2B', '%20', '%3D', '%26', '%25', '%C3%A9', '%C3', '%A9', '%E2%82%AC', '%F0%9F%9A%80', '%ED%A0%80',
  '%C0%AF', '%EF%BB%BF', '%FF', '%zz', '%%', 'é', '🚀', '\uFFFD', '\ud800', ' ', '\u0000', '__proto__',
);
const body = fc.array(piece, { maxLength: 24 }).map((pieces) => pieces.join(''));
/** Bodies as clients write them: URLSearchParams' own encoding of random pairs. */
const encoded = fc
  .array(fc.tuple(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 40 })), { maxLength: 8 })
  .map((pairs) => new URLSearchParams(pairs).toString());
/** Arbitrary bytes read as UTF-8, as the form parser reads a body. */
const bytes = fc.uint8Array({ maxLength: 64 }).map((raw) => Buffer.from(raw).toString('utf8'));

describe('application/x-www-form-urlencoded pairs (RFC 6749 §3.2, WHATWG URL urlencoded parser)', () => {
  it.each([
    ['plain pairs', 'a=1&b=2', [['a', '1'], ['b', '2']]],
    ['plus is a space, %2B a plus', 'a=x+y%2Bz', [['a', 'x y+z']]],
    ['empty segments are skipped', '&&a=1&&', [['a', '1']]],
    ['a name without "=" has an empty value', 'a&b=', [['a', ''], ['b', '']]],
    ['only the first "=" splits', 'a==b=c', [['a', '=b=c']]],
    ['a lone "%" stays literal (the standard\'s lenience)', 'a=100%&b=%zz', [['a', '100%'], ['b', '%zz']]],
    ['invalid UTF-8 escapes become U+FFFD', 'a=%C3&b=%FF', [['a', '\uFFFD'], ['b', '\uFFFD']]],
    ['a leading "?" is dropped, as URLSearchParams does', '?a=1', [['a', '1']]],
  ])('RFC 6749 §3.2: %s', (_, text, expected) => {
    expect(pairsOf(text)).toEqual(expected);
    expect(pairsOf(text)).toEqual(whatwg(text));
  });

  it('RFC 6749 §3.2: the same pairs as URLSearchParams on random bodies', () => {
    fc.assert(fc.property(fc.oneof(body, encoded, bytes, fc.string({ unit: 'binary' })), (text) => {
      expect(pairsOf(text)).toEqual(whatwg(text));
    }), { numRuns: 4000 });
  });
});

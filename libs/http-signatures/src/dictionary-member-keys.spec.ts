import fc from 'fast-check';
import { DisplayString, parseDictionary, serializeDictionary, Token, type BareItem, type InnerList, type Item, type Parameters } from 'structured-headers';
import { dictionaryMemberKeys } from './dictionary-member-keys.js';

/**
 * dictionaryMemberKeys reads each top-level member's key off a value that `parseDictionary` accepted. The property:
 * for any Dictionary serialized member by member — duplicate keys, strings holding commas, quotes, backslashes and
 * parentheses, inner lists, byte sequences, parameters — joined with any allowed whitespace, the keys come back in
 * order with their repeats (which `parseDictionary` alone folds into the last one).
 */
const KEY = fc.stringMatching(/^[a-z*][a-z0-9_\-.*]{0,6}$/);
const BARE: fc.Arbitrary<BareItem> = fc.oneof(
  fc.integer({ min: -999_999_999, max: 999_999_999 }),
  fc.string({ unit: fc.constantFrom(...' ,;()="\\abc=:*'.split('')), maxLength: 12 }),
  fc.stringMatching(/^[A-Za-z*][A-Za-z0-9:/!#$%&'*+\-.^_`|~]{0,8}$/).map((text) => new Token(text)),
  fc.uint8Array({ maxLength: 24 }).map((bytes) => bytes.buffer as ArrayBuffer),
  fc.boolean(),
  fc.string({ maxLength: 6 }).map((text) => new DisplayString(text)),
);
const PARAMETERS: fc.Arbitrary<Parameters> = fc.array(fc.tuple(KEY, BARE), { maxLength: 3 }).map((pairs) => new Map(pairs));
const ITEM: fc.Arbitrary<Item> = fc.tuple(BARE, PARAMETERS);
const MEMBER_VALUE: fc.Arbitrary<Item | InnerList> = fc.oneof(ITEM, fc.tuple(fc.array(ITEM, { maxLength: 3 }), PARAMETERS));
const SEPARATOR = fc.constantFrom(',', ', ', ' ,', ' , ', ',\t', '\t,  ');

describe('dictionaryMemberKeys (RFC 8941 §3.2, RFC 9421 §4: repeated labels are visible)', () => {
  it('gives every member key in order, repeats included, for any Dictionary that parses (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(KEY, MEMBER_VALUE), { minLength: 1, maxLength: 6 }), fc.array(SEPARATOR, { minLength: 6, maxLength: 6 }), (members, separators) => {
        const value = members.map(([key, member], index) => (index === 0 ? '' : separators[index - 1]) + serializeDictionary(new Map([[key, member]]))).join('');
        parseDictionary(value); // what both callers check first
        expect(dictionaryMemberKeys(value)).toEqual(members.map(([key]) => key));
      }),
      { numRuns: 1_500 },
    );
  });

  it('splits several field lines joined with ", " and keeps a label that repeats across them', () => {
    expect(dictionaryMemberKeys('sig=("@method" "content-digest");created=1, sig2=:AAEC:')).toEqual(['sig', 'sig2']);
    expect(dictionaryMemberKeys('sig=:AAEC:, sig=:AAED:')).toEqual(['sig', 'sig']);
    expect(dictionaryMemberKeys('a="x, y=(z)", b;p="\\"q, r"')).toEqual(['a', 'b']);
  });

  it('RFC 9651 §3.3.8: a backslash in a Display String escapes nothing, so a label repeated after one is still seen', () => {
    const value = 'sig=:AAEC:;note=%"\\", sig=:AAED:';
    expect([...parseDictionary(value).keys()]).toEqual(['sig']);
    expect(dictionaryMemberKeys(value)).toEqual(['sig', 'sig']);
  });
});

import { readFileSync } from 'node:fs';
import { authorityHash, authoritySetCanonicalJson, isAuthorityHash } from './authority-hash.js';
import type { AuthoritySet } from './authority-set.js';
import { parseAuthorizationDetails } from './parse-authorization-details.js';

interface Vector {
  name: string;
  iss: string;
  authority_set: AuthoritySet;
  canonical?: string;
  authority_hash: string;
}

// The shared known-answer file, relative to this repository (../shared next to the checkout).
const vectorsFile = new URL('../../../../../shared/vectors/authority-hash.json', import.meta.url);
const { vectors } = JSON.parse(readFileSync(vectorsFile, 'utf8')) as { vectors: Vector[] };

describe('authority_hash (DESIGN 2.3)', () => {
  it('has known-answer vectors to check', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(3);
  });

  describe.each(vectors.map((vector) => [vector.name, vector] as const))('DESIGN 2.3 vector: %s', (_, vector) => {
    if (vector.canonical !== undefined) {
      it('produces the vector canonical JCS text', () => {
        expect(authoritySetCanonicalJson(vector.iss, vector.authority_set)).toBe(vector.canonical);
      });
    }

    it('produces the vector authority_hash', () => {
      expect(authorityHash(vector.iss, vector.authority_set)).toBe(vector.authority_hash);
      expect(isAuthorityHash(vector.authority_hash)).toBe(true);
    });

    it('produces the same hash after parsing the set as authorization_details', () => {
      const parsed = parseAuthorizationDetails(JSON.parse(JSON.stringify(vector.authority_set)));
      expect(parsed).toEqual(vector.authority_set);
      expect(authorityHash(vector.iss, parsed)).toBe(vector.authority_hash);
      if (vector.canonical !== undefined) expect(authoritySetCanonicalJson(vector.iss, parsed)).toBe(vector.canonical);
    });
  });

  it('DESIGN 2.3: action order and duplicates do not change the hash; entry order does', () => {
    const [first] = vectors;
    const set = first!.authority_set;
    const reordered: AuthoritySet = [{ ...set[0]!, actions: ['invoices.read', 'invoices.read'] }, set[1]!];
    expect(authorityHash(first!.iss, reordered)).toBe(first!.authority_hash);
    expect(authorityHash(first!.iss, [set[1]!, set[0]!])).not.toBe(first!.authority_hash);
  });

  it('DESIGN 2.3: the issuer is part of the hash', () => {
    const [first] = vectors;
    expect(authorityHash('https://other.example.com', first!.authority_set)).not.toBe(first!.authority_hash);
  });

  it('DESIGN 2.3: canonical text sorts members and actions by UTF-16 code unit, not by code point or locale', () => {
    // U+FF21 (one code unit 0xFF21) sorts after U+1F600 (surrogates 0xD83D 0xDE00) by code unit,
    // but before it by code point.
    const set: AuthoritySet = [{ type: 'mission_resource_access', resource: 'https://r.example', actions: ['\uFF21', '\u{1F600}', 'b', 'B'] }];
    const text = authoritySetCanonicalJson('https://as.example', set);
    expect(text).toContain('"actions":["B","b","😀","Ａ"]');
  });

  it('refuses an empty issuer', () => {
    expect(() => authorityHash('', [])).toThrow(TypeError);
  });
});

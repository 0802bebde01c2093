import fc from 'fast-check';
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { candidateKeys, candidateSelectionsRemembered, keyFitsAlgorithm, publicKeyOf, verifyCompactJws } from './jws-signature.js';

/**
 * ADR 0035: signatures are checked on node:crypto instead of jose's compactVerify. jose stays the oracle: for
 * tokens built here byte by byte (so neither verifier made them) and then mutated, both must agree on every
 * input — except `crit`, which we refuse whatever it names (jose accepts `crit: ["b64"]`; we understand no
 * extension, RFC 7515 §4.1.11), so the generators only put unknown names in `crit`.
 */
const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');

interface Signer {
  readonly alg: 'ES256' | 'EdDSA' | 'Ed25519';
  readonly privateKey: KeyObject;
  readonly jwk: JWK;
}

function signer(alg: Signer['alg']): Signer {
  const pair = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  return { alg, privateKey: pair.privateKey, jwk: pair.publicKey.export({ format: 'jwk' }) as JWK };
}

const signers = [signer('ES256'), signer('ES256'), signer('EdDSA'), signer('Ed25519')];

function signed(header: Record<string, unknown>, payload: string, by: Signer): string {
  const input = `${b64(JSON.stringify(header))}.${b64(payload)}`;
  const signature = by.alg === 'ES256' ? sign('sha256', Buffer.from(input), { key: by.privateKey, dsaEncoding: 'ieee-p1363' }) : sign(null, Buffer.from(input), by.privateKey);
  return `${input}.${b64(signature)}`;
}

const mutations = {
  none: (token: string) => token,
  flipPayloadChar: (token: string, at: number) => flip(token, token.indexOf('.') + 1 + (at % Math.max(1, token.split('.')[1]!.length))),
  flipSignatureChar: (token: string, at: number) => flip(token, token.lastIndexOf('.') + 1 + (at % token.split('.')[2]!.length)),
  truncateSignature: (token: string) => token.slice(0, -2),
  dropSignature: (token: string) => token.slice(0, token.lastIndexOf('.') + 1),
  extraSegment: (token: string) => `${token}.${b64('x')}`,
};

function flip(token: string, index: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const current = token[index]!;
  const replacement = alphabet[(alphabet.indexOf(current) + 17) % alphabet.length]!;
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

async function joseAccepts(token: string, jwk: JWK, alg: string, allowed: readonly string[]): Promise<boolean> {
  try {
    const key = await importJWK(jwk, alg === 'Ed25519' ? 'Ed25519' : alg);
    await compactVerify(token, key, { algorithms: [...allowed] });
    return true;
  } catch {
    return false;
  }
}

describe('JWS signatures on node:crypto (ADR 0035)', () => {
  it('agrees with jose on built and mutated tokens: headers, payloads, keys and algorithm lists drawn at random', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          by: fc.integer({ min: 0, max: signers.length - 1 }),
          verifyWith: fc.oneof({ arbitrary: fc.constant(-1), weight: 3 }, { arbitrary: fc.integer({ min: 0, max: signers.length - 1 }), weight: 2 }), // -1: the signer's own key
          // Mostly the signer's own alg, so that the valid-signature branches (allowed list, key fit) are reached often.
          headerAlg: fc.oneof({ arbitrary: fc.constant('own'), weight: 4 }, { arbitrary: fc.constantFrom('ES256', 'EdDSA', 'Ed25519', 'RS256', 'HS256', 'none', 'ES384'), weight: 3 }),
          extra: fc.dictionary(fc.constantFrom('kid', 'typ', 'jwk', 'x5u', 'cty', 'nonce'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
          crit: fc.option(fc.array(fc.constantFrom('exp', 'urn:example:unknown', 'nonce'), { minLength: 1, maxLength: 2 }), { nil: undefined, freq: 4 }),
          payload: fc.json({ maxDepth: 2 }),
          mutation: fc.oneof({ arbitrary: fc.constant('none' as const), weight: 5 }, { arbitrary: fc.constantFrom(...(Object.keys(mutations) as Array<keyof typeof mutations>)), weight: 5 }),
          at: fc.nat(),
          allowed: fc.subarray(['ES256', 'EdDSA', 'Ed25519'], { minLength: 1 }),
        }),
        async ({ by, verifyWith, headerAlg, extra, crit, payload, mutation, at, allowed }) => {
          const header: Record<string, unknown> = { ...extra, alg: headerAlg === 'own' ? signers[by]!.alg : headerAlg, ...(crit === undefined ? {} : { crit }) };
          const token = mutations[mutation](signed(header, payload, signers[by]!), at);
          const verifier = signers[verifyWith === -1 ? by : verifyWith]!;
          const ours = verifyCompactJws(token, publicKeyOf(verifier.jwk)!, allowed);
          expect(ours).toBe(await joseAccepts(token, verifier.jwk, verifier.alg, allowed));
          // The pipeline's path: the header jose decoded is handed in instead of decoded again (issue 15).
          let decoded: unknown;
          try {
            decoded = decodeProtectedHeader(token);
          } catch {
            return; // the pipeline refuses such a token before any signature rule
          }
          expect(verifyCompactJws(token, publicKeyOf(verifier.jwk)!, allowed, decoded)).toBe(ours);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('accepts a good signature and refuses the attacks jose refuses: wrong key, alg confusion, none, crit, tampering', () => {
    const [es, otherEs, ed] = signers;
    const good = signed({ alg: 'ES256', typ: 'dpop+jwt' }, '{"a":1}', es!);
    const esKey = publicKeyOf(es!.jwk)!;
    expect(verifyCompactJws(good, esKey, ['ES256'])).toBe(true);
    expect(verifyCompactJws(good, publicKeyOf(otherEs!.jwk)!, ['ES256'])).toBe(false);
    expect(verifyCompactJws(good, esKey, ['EdDSA'])).toBe(false); // alg not allowed
    expect(verifyCompactJws(signed({ alg: 'EdDSA' }, '{}', ed!), esKey, ['ES256', 'EdDSA'])).toBe(false); // key type does not fit the alg
    expect(verifyCompactJws(`${b64('{"alg":"none"}')}.${b64('{}')}.`, esKey, ['ES256'])).toBe(false);
    expect(verifyCompactJws(signed({ alg: 'ES256', crit: ['b64'], b64: true }, '{}', es!), esKey, ['ES256'])).toBe(false);
    expect(verifyCompactJws(good.replace(/\.[^.]+\./, `.${b64('{"a":2}')}.`), esKey, ['ES256'])).toBe(false);
  });

  it('imports public keys once and refuses keys that are not usable public keys', () => {
    expect(publicKeyOf(signers[0]!.jwk)).toBe(publicKeyOf({ ...signers[0]!.jwk }));
    expect(publicKeyOf({ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' })).toBeNull();
    expect(keyFitsAlgorithm(publicKeyOf(signers[2]!.jwk)!, 'ES256')).toBe(false);
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey;
    expect(keyFitsAlgorithm(p384, 'ES256')).toBe(false);
  });

  it('selects candidate keys as a local JWK set does: kid, key type of the alg, use, key_ops, alg', () => {
    const [es, otherEs, ed] = signers;
    const keys: JWK[] = [
      { ...es!.jwk, kid: 'a' },
      { ...otherEs!.jwk, kid: 'b', use: 'enc' },
      { ...otherEs!.jwk, kid: 'c', key_ops: ['encrypt'] },
      { ...otherEs!.jwk, kid: 'd', alg: 'ES384' },
      { ...ed!.jwk, kid: 'e' },
    ];
    expect(candidateKeys(keys, { alg: 'ES256', kid: 'a' })).toEqual([publicKeyOf(keys[0]!)]);
    expect(candidateKeys(keys, { alg: 'ES256' })).toEqual([publicKeyOf(keys[0]!)]);
    expect(candidateKeys(keys, { alg: 'ES256', kid: 'b' })).toEqual([]);
    expect(candidateKeys(keys, { alg: 'EdDSA' })).toEqual([publicKeyOf(keys[4]!)]);
    expect(candidateKeys(keys, { alg: 'HS256' })).toEqual([]);
    expect(candidateKeys(keys, {})).toEqual([]);
  });

  it('remembers selections only for a frozen key set: a set that can still change is selected afresh every time', () => {
    const [es, otherEs] = signers;
    const open: JWK[] = [{ ...es!.jwk, kid: 'a' }];
    expect(candidateKeys(open, { alg: 'ES256' })).toEqual([publicKeyOf(open[0]!)]);
    open.push({ ...otherEs!.jwk, kid: 'b' });
    open.shift();
    // Had the first selection been remembered by the array's identity, the removed key would still be offered.
    expect(candidateKeys(open, { alg: 'ES256' })).toEqual([publicKeyOf(open[0]!)]);
    const jwk: JWK = { ...es!.jwk, kid: 'a' };
    const frozenArrayOnly = Object.freeze([jwk]);
    candidateKeys(frozenArrayOnly, { alg: 'ES256', kid: 'a' });
    jwk.kid = 'z'; // the key itself was not frozen
    expect(candidateKeys(frozenArrayOnly, { alg: 'ES256', kid: 'a' })).toEqual([]);
  });

  it('a frozen key set answers from memory exactly what a fresh selection gives, and unknown kids are not remembered', () => {
    const [es, otherEs, ed] = signers;
    const keys = Object.freeze([{ ...es!.jwk, kid: 'a' }, { ...otherEs!.jwk, kid: 'b' }, { ...ed!.jwk, kid: 'e', key_ops: ['verify'] }].map((jwk) => Object.freeze({ ...jwk, ...(jwk.key_ops ? { key_ops: Object.freeze([...jwk.key_ops]) } : {}) }) as JWK));
    const copy = keys.map((jwk) => ({ ...jwk })); // not frozen: always selected afresh
    for (const header of [{ alg: 'ES256' }, { alg: 'ES256', kid: 'b' }, { alg: 'EdDSA', kid: 'e' }, { alg: 'ES256', kid: 'e' }, { alg: 'ES256', kid: 7 }]) {
      const first = candidateKeys(keys, header);
      expect(candidateKeys(keys, header)).toEqual(candidateKeys(copy, header));
      if (first.length > 0) expect(candidateKeys(keys, header)).toBe(first);
    }
    for (let i = 0; i < 1000; i++) candidateKeys(keys, { alg: 'ES256', kid: `unknown-${i}` });
    expect(candidateSelectionsRemembered(keys)).toBeLessThanOrEqual(keys.length * 3 + 3);
  });
});

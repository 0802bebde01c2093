import { calculateJwkThumbprint } from 'jose';
import { keyPair } from './agent-token.spec-helper.js';
import { hwkPrincipal, principalRegistry, type ManagementPrincipal } from './hwk-principal.js';
import { parseSignatureKey } from './parse-signature-key.js';
import { SignatureKeyError } from './signature-key-error.js';

function reasonOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof SignatureKeyError) return error.reason;
    throw error;
  }
  throw new Error('expected a SignatureKeyError');
}

async function asyncReasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SignatureKeyError) return error.reason;
    throw error;
  }
  throw new Error('expected a SignatureKeyError');
}

const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln';

describe('parseSignatureKey (DESIGN 3.2, spec 5.1: Signature-Key as an RFC 8941 Dictionary)', () => {
  it('DESIGN 3.2: reads the jwt scheme for label sig', () => {
    expect(parseSignatureKey(`sig=jwt;jwt="${JWT}"`)).toEqual({ scheme: 'jwt', jwt: JWT });
  });

  it('DESIGN 3.2: reads an hwk EC P-256 key and keeps only its public members', async () => {
    const { publicJwk } = await keyPair('ES256');
    const parsed = parseSignatureKey(`sig=hwk;kty="EC";crv="P-256";x="${publicJwk.x}";y="${publicJwk.y}";alg="ES256"`);
    expect(parsed).toEqual({ scheme: 'hwk', key: { kty: 'EC', crv: 'P-256', x: publicJwk.x, y: publicJwk.y } });
  });

  it('DESIGN 3.2: reads an hwk OKP Ed25519 key given with token parameters', async () => {
    const { publicJwk } = await keyPair('EdDSA');
    const x = String(publicJwk.x);
    const parsed = parseSignatureKey(`sig=hwk;kty=OKP;crv=Ed25519;x="${x}"`);
    expect(parsed).toEqual({ scheme: 'hwk', key: { kty: 'OKP', crv: 'Ed25519', x } });
  });

  it('DESIGN 3.3: reads the jwks_uri scheme', () => {
    expect(parseSignatureKey('sig=jwks_uri;id="https://ps.example";dwk="aauth-person.json";kid="k1"')).toEqual({
      scheme: 'jwks_uri',
      id: 'https://ps.example',
      dwk: 'aauth-person.json',
      kid: 'k1',
    });
  });

  it('DESIGN 3.2: ignores members for other labels and joins several field lines', () => {
    expect(parseSignatureKey(['other=hwk;kty=EC', `sig=jwt;jwt="${JWT}"`])).toEqual({ scheme: 'jwt', jwt: JWT });
  });

  it.each([
    ['not a dictionary', 'sig=jwt;jwt="unterminated', 'malformed_signature_key'],
    ['a scheme given as a string', `sig="jwt";jwt="${JWT}"`, 'malformed_signature_key'],
    ['an inner list member', 'sig=(jwt)', 'malformed_signature_key'],
    ['a jwt that is not a compact JWS', 'sig=jwt;jwt="abc"', 'malformed_signature_key'],
    ['a jwt given as a token', 'sig=jwt;jwt=abc', 'malformed_signature_key'],
    ['jwks_uri without kid', 'sig=jwks_uri;id="https://ps.example";dwk="aauth-person.json"', 'malformed_signature_key'],
    ['an unknown scheme', 'sig=x509;cert="abc"', 'unsupported_scheme'],
    ['a duplicate sig label', `sig=jwt;jwt="${JWT}", sig=jwt;jwt="${JWT}"`, 'duplicate_label'],
    ['no sig label', `other=jwt;jwt="${JWT}"`, 'missing_signature_key'],
    ['an empty field', '', 'missing_signature_key'],
    ['an hwk key of another type', 'sig=hwk;kty="RSA";n="abc";e="AQAB"', 'invalid_key'],
    ['an hwk EC key without y', 'sig=hwk;kty="EC";crv="P-256";x="ieuCkZARFfDAvNLhLEU035dGBFWVYjUT-FZ-J9Yi52U"', 'invalid_key'],
    ['an hwk EC point off the curve', 'sig=hwk;kty="EC";crv="P-256";x="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";y="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"', 'invalid_key'],
  ])('DESIGN 3.2: refuses %s', (_what, field, reason) => {
    expect(reasonOf(() => parseSignatureKey(field))).toBe(reason);
  });

  it('DESIGN 3.2: refuses no field at all', () => {
    expect(reasonOf(() => parseSignatureKey(undefined))).toBe('missing_signature_key');
  });

  it('DESIGN 3.2 (no bearer secrets): refuses an hwk key carrying private members', async () => {
    const { privateJwk } = await keyPair('ES256');
    const field = `sig=hwk;kty="EC";crv="P-256";x="${privateJwk.x}";y="${privateJwk.y}";d="${privateJwk.d}"`;
    expect(reasonOf(() => parseSignatureKey(field))).toBe('invalid_key');
    const ed = await keyPair('EdDSA');
    expect(reasonOf(() => parseSignatureKey(`sig=hwk;kty="OKP";crv="Ed25519";x="${ed.privateJwk.x}";d="${ed.privateJwk.d}"`))).toBe('invalid_key');
  });
});

describe('hwkPrincipal (DESIGN 3.2: registered key thumbprints, spec 5.3 roles)', () => {
  it('DESIGN 3.2: finds the principal by the RFC 7638 thumbprint of its key', async () => {
    const { publicJwk } = await keyPair('EdDSA');
    const alice: ManagementPrincipal = { id: 'alice', role: 'person', jkt: await calculateJwkThumbprint(publicJwk), tenant: 't1', agents: ['aauth:assistant@agents.example'] };
    const ops: ManagementPrincipal = { id: 'ops', role: 'admin', jkt: 'GKBEJi7AYm4cY6K_VSATXDOuIGxtfb32pp5BJFq-lUI', tenant: 't1' };
    const parsed = parseSignatureKey(`sig=hwk;kty="OKP";crv="Ed25519";x="${publicJwk.x}"`);
    if (parsed.scheme !== 'hwk') throw new Error('expected hwk');
    await expect(hwkPrincipal(parsed.key, principalRegistry([ops, alice]))).resolves.toBe(alice);
  });

  it('DESIGN 3.2: an unregistered thumbprint is unknown_key', async () => {
    const { publicJwk } = await keyPair('ES256');
    const parsed = parseSignatureKey(`sig=hwk;kty="EC";crv="P-256";x="${publicJwk.x}";y="${publicJwk.y}"`);
    if (parsed.scheme !== 'hwk') throw new Error('expected hwk');
    const other = await keyPair('ES256');
    const registry = principalRegistry([{ id: 'bob', role: 'person', jkt: await calculateJwkThumbprint(other.publicJwk), tenant: 't1' }]);
    expect(await asyncReasonOf(hwkPrincipal(parsed.key, registry))).toBe('unknown_key');
  });
});

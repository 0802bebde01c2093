import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, importJWK, calculateJwkThumbprint } from 'jose';
import { clientAssertion, createPkcePair, DpopKey, CLIENT_ASSERTION_TYPE } from './index.js';

describe('mission client helpers', () => {
  it('creates an S256 PKCE pair (RFC 7636 §4.1–4.2)', () => {
    const { verifier, challenge, method } = createPkcePair();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(challenge).toBe(createHash('sha256').update(verifier).digest('base64url'));
    expect(method).toBe('S256');
  });

  it('signs a private_key_jwt client assertion (RFC 7523 §3)', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const form = await clientAssertion({ clientId: 'agent-a', privateKey, alg: 'ES256' }, 'https://issuer.example', new Date());
    expect(form['client_assertion_type']).toBe(CLIENT_ASSERTION_TYPE);
    const { payload } = await jwtVerify(form['client_assertion']!, publicKey, { issuer: 'agent-a', subject: 'agent-a', audience: 'https://issuer.example' });
    expect(payload.jti).toBeDefined();
    expect(payload.exp! - payload.iat!).toBe(60);
  });

  it('makes DPoP proofs with typ, jwk, htm, htu without query, ath (RFC 9449 §4.2)', async () => {
    const key = await DpopKey.generate();
    const proof = await key.proof('POST', 'https://issuer.example/token?x=1#f', { accessToken: 'at', nonce: 'n1' });
    const header = decodeProtectedHeader(proof);
    expect(header.typ).toBe('dpop+jwt');
    expect(await calculateJwkThumbprint(header.jwk!)).toBe(key.jkt);
    const { payload } = await jwtVerify(proof, await importJWK(header.jwk!, 'ES256'));
    expect(payload).toMatchObject({ htm: 'POST', htu: 'https://issuer.example/token', nonce: 'n1', ath: createHash('sha256').update('at').digest('base64url') });
    expect(decodeJwt(proof).jti).toBeDefined();
    expect(Object.keys(await exportJWK((await generateKeyPair('ES256')).publicKey))).not.toContain('d');
  });
});

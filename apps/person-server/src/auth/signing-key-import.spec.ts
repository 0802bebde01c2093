import { importedPublicKey } from '@mission/http-signatures';
import { calculateJwkThumbprint } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { SignatureVerificationProblem } from '../errors/signature-verification.problem.js';
import {
  ALICE_KEY,
  OPS_KEY,
  agentRequest,
  agentToken,
  demoAuthenticator,
  failureOf,
  freshKey,
  hwkSignatureKey,
  jwtSignatureKey,
  principalKey,
  signedRequest,
} from '../testing/signed-request.spec-helper.js';

/**
 * Issue 15, ADR 0062: the signer's public key (an `hwk` key or an Agent Token's `cnf.jwk`) is imported and
 * thumbprinted once, from a cache keyed by its RFC 7638 members. These are the attacks on that cache: a key that
 * shares parts of a cached key must never be taken for it, and refusals stay what they were.
 */
const ops = principalKey(OPS_KEY); // EC P-256
const alice = principalKey(ALICE_KEY); // OKP Ed25519

const hwkField = (members: Record<string, string>) => `sig=hwk;${Object.entries(members).map(([name, value]) => `${name}="${value}"`).join(';')}`;

describe('signer key import once (issue 15, ADR 0062)', () => {
  it('spec 5.1 / DESIGN 3.2: an hwk key with a cached principal key\'s x but another y, crv or kty is never that principal', async () => {
    const { authenticator } = demoAuthenticator();
    // The principals' keys are now in the cache.
    await expect(authenticator.authenticate(signedRequest({ key: ops, signatureKey: hwkSignatureKey(ops) }))).resolves.toMatchObject({ id: 'ops' });
    await expect(authenticator.authenticate(signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice) }))).resolves.toMatchObject({ id: 'alice' });
    const attacker = await freshKey('ES256');
    // Signed with the attacker's own key; only the Signature-Key borrows the cached key's members.
    const sameXOtherY = hwkField({ kty: 'EC', crv: 'P-256', x: ops.publicJwk.x!, y: attacker.publicJwk.y! });
    const aliceXAsEc = hwkField({ kty: 'EC', crv: 'P-256', x: alice.publicJwk.x!, y: ops.publicJwk.y! });
    for (const signatureKey of [sameXOtherY, aliceXAsEc]) {
      await expect(failureOf(authenticator.authenticate(signedRequest({ key: attacker, signatureKey })))).resolves.toBe('invalid_key');
    }
    // ops's x read as an Ed25519 key is some other key (or none): never ops, never alice.
    const opsXAsOkp = hwkField({ kty: 'OKP', crv: 'Ed25519', x: ops.publicJwk.x! });
    expect(['invalid_key', 'unknown_key']).toContain(await failureOf(authenticator.authenticate(signedRequest({ key: attacker, signatureKey: opsXAsOkp }))));
  });

  it('spec 5.1: an Agent Token whose cnf.jwk borrows a cached agent key\'s x (other y) is refused, not served that key', async () => {
    const { authenticator } = demoAuthenticator();
    const first = await agentRequest();
    await expect(authenticator.authenticate(first)).resolves.toMatchObject({ kind: 'agent' });
    const firstEc = await freshKey('ES256');
    await expect(authenticator.authenticate(await agentRequest({ agentKey: firstEc }))).resolves.toMatchObject({ kind: 'agent' });
    const second = await freshKey('ES256');
    const borrowed = { ...second, publicJwk: { ...second.publicJwk, x: firstEc.publicJwk.x! } };
    const token = await agentToken({ agentKey: borrowed });
    await expect(failureOf(authenticator.authenticate(signedRequest({ key: second, signatureKey: jwtSignatureKey(token) })))).resolves.toBe('invalid_agent_token');
  });

  it('spec 5.1 / RFC 7638: repeated agent requests report the thumbprint jose computes, per key, from one import', async () => {
    const { authenticator } = demoAuthenticator();
    const agentKey = await freshKey('ES256');
    const other = await freshKey('ES256');
    const expected = await calculateJwkThumbprint(agentKey.publicJwk, 'sha256');
    for (let i = 0; i < 3; i++) {
      await expect(authenticator.authenticate(await agentRequest({ agentKey }))).resolves.toMatchObject({ agentJkt: expected });
    }
    await expect(authenticator.authenticate(await agentRequest({ agentKey: other }))).resolves.toMatchObject({ agentJkt: await calculateJwkThumbprint(other.publicJwk, 'sha256') });
    expect(importedPublicKey({ ...agentKey.publicJwk, kid: 'any' })).toBe(importedPublicKey(agentKey.publicJwk));
  });

  it('spec 5.1 / DESIGN 3.2: a key of an unsupported type is refused 401 invalid_key, on first use and on every repeat', async () => {
    const { authenticator } = demoAuthenticator();
    const signer = await freshKey('ES256');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' });
    const fields = [
      hwkField({ kty: 'RSA', n: rsa.n!, e: rsa.e! }),
      hwkField({ kty: 'EC', crv: 'P-384', x: p384.x!, y: p384.y! }),
      hwkField({ kty: 'oct', k: 'c2VjcmV0LWtleS1tYXRlcmlhbA' }),
      hwkField({ kty: 'OKP', crv: 'X25519', x: alice.publicJwk.x! }),
    ];
    for (const signatureKey of [...fields, ...fields]) {
      const error = await authenticator.authenticate(signedRequest({ key: signer, signatureKey })).then(() => undefined, (caught: unknown) => caught);
      expect(error).toBeInstanceOf(SignatureVerificationProblem);
      expect(error).toMatchObject({ status: 401, reason: 'invalid_key' });
    }
  });
});

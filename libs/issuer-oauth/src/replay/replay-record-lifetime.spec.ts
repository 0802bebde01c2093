import { randomUUID } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { authenticateClient } from '../client-authentication/authenticate-client.js';
import { CLIENT_ASSERTION_TYPE_JWT_BEARER } from '../client-authentication/context.js';
import { verifyDpopProof } from '../dpop/verify-dpop-proof.js';
import { InvalidClientError } from '../errors/invalid-client.error.js';
import { InvalidDpopProofError } from '../errors/invalid-dpop-proof.error.js';
import { ManualClock, signJwt, testKey, type TestKey } from '../testing.spec-helper.js';
import type { JtiRegistry, SingleUse } from './jti-registry.js';

/**
 * ADR 0057: a replay record may be swept from its `expiresAt` on, so `expiresAt` must be the first instant at
 * which the token is refused on its own time claims — one second earlier the token still passes them, and a
 * record swept then would let a replay through. Checked at the boundary with a registry that forgets every use
 * (what a sweep at `expiresAt` leaves).
 */
const ISSUER = 'https://issuer.example';
const TOKEN_URL = `${ISSUER}/token`;

class ForgetfulRegistry implements JtiRegistry {
  readonly uses: SingleUse[] = [];
  async use(use: SingleUse): Promise<boolean> {
    this.uses.push(use);
    return true;
  }
}

let key: TestKey;
beforeAll(async () => {
  key = await testKey('ES256');
});

async function outcome(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'accepted',
    (error: unknown) => (error instanceof InvalidClientError || error instanceof InvalidDpopProofError ? (error.description ?? '') : String(error)),
  );
}

describe('replay records last exactly until the token is refused on its own (ADR 0057)', () => {
  it('RFC 9449 §11.1: a DPoP proof passes the iat window until the second before its record expires, and is refused from then on', async () => {
    const clock = new ManualClock();
    const jtis = new ForgetfulRegistry();
    const proof = await signJwt(key, { jti: randomUUID(), htm: 'POST', htu: TOKEN_URL, iat: clock.seconds }, { typ: 'dpop+jwt', jwk: key.publicJwk });
    const verify = () => outcome(verifyDpopProof({ method: 'POST', url: TOKEN_URL, dpop: proof }, { jtis, clock }));
    expect(await verify()).toBe('accepted');
    const expiresAt = jtis.uses[0]!.expiresAt.getTime();
    clock.advance((expiresAt - clock.now().getTime()) / 1000 - 0.001);
    expect(await verify()).toBe('accepted');
    clock.advance(0.001);
    expect(await verify()).toBe('DPoP proof is too old');
  });

  it('RFC 7523 §3 item 7: a client assertion passes exp (with the clock tolerance) until its record expires, and is refused from then on', async () => {
    const clock = new ManualClock();
    const jtis = new ForgetfulRegistry();
    const claims: JWTPayload = { iss: 'agent', sub: 'agent', aud: ISSUER, iat: clock.seconds, exp: clock.seconds + 60, jti: randomUUID() };
    const assertion = await signJwt(key, claims, { typ: 'JWT', kid: 'k1' });
    const clients = { findClient: (id: string) => (id === 'agent' ? { client_id: 'agent', jwks: { keys: [{ ...key.publicJwk, kid: 'k1', alg: 'ES256', use: 'sig' }] } } : undefined) };
    const authenticate = () =>
      outcome(authenticateClient({ client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER, client_assertion: assertion }, { clients, jtis, clock, issuer: ISSUER }));
    expect(await authenticate()).toBe('accepted');
    const expiresAt = jtis.uses[0]!.expiresAt.getTime();
    clock.advance((expiresAt - clock.now().getTime()) / 1000 - 0.001);
    expect(await authenticate()).toBe('accepted');
    clock.advance(0.001);
    expect(await authenticate()).toBe('client_assertion has expired');
  });
});

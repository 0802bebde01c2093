import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import { verifyContentDigest, verifyRequestSignature } from '@mission/http-signatures';
import { SigningKeys, type PublicSigningJwk } from '@mission/platform';
import { FakeResource } from '../testing/fake-resource.js';
import { RevocationClient } from './revocation-client.js';
import { ResourceRateLimiter } from './resource-rate-limiter.js';

const ISSUER = 'https://ps.example';
const TOKEN = { iss: ISSUER, jti: 'jti-1' };

async function signingKeys(): Promise<SigningKeys> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(publicKey);
  return new SigningKeys(privateKey, { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y!, kid: 'ps-key-1', alg: 'ES256', use: 'sig' } as PublicSigningJwk, 'development');
}

describe('spec 4.4 rule 3: only a 200 confirms a revocation', () => {
  const resource = new FakeResource();
  // A resource that answers must be read as its answer however loaded the machine is: a generous timeout for those
  // (a 200 that missed a tight one would read as `timeout`). Only the resource that never answers meets a short one.
  let client: RevocationClient;
  let impatientClient: RevocationClient;
  beforeAll(async () => {
    await resource.start('ok');
    const keys = await signingKeys();
    client = new RevocationClient({ issuer: ISSUER, keys, timeoutMs: 10_000 });
    impatientClient = new RevocationClient({ issuer: ISSUER, keys, timeoutMs: 300 });
  });
  afterAll(() => resource.stop());

  it.each([
    ['ok', { outcome: 'confirmed', httpStatus: 200 }],
    ['fail', { outcome: 'server_error', httpStatus: 500 }],
    ['refuse', { outcome: 'unreachable' }],
  ] as const)('a resource in mode %s → %j', async (mode, expected) => {
    await resource.setMode(mode);
    expect(await client.revoke(resource.endpoint, TOKEN)).toEqual(expected);
  });

  it('a resource in mode hang → {"outcome":"timeout"} once the call timeout runs out', async () => {
    await resource.setMode('hang');
    expect(await impatientClient.revoke(resource.endpoint, TOKEN)).toEqual({ outcome: 'timeout' });
  });

  it('4xx is rejected and other statuses are ambiguous (both unconfirmed)', async () => {
    for (const [status, outcome] of [[401, 'rejected'], [404, 'rejected'], [202, 'ambiguous'], [204, 'ambiguous'], [302, 'ambiguous']] as const) {
      const server = createServer((_request, response) => response.writeHead(status, status === 302 ? { location: 'http://127.0.0.1:1/' } : {}).end());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/revoke`;
      expect(await client.revoke(url, TOKEN)).toEqual({ outcome, httpStatus: status });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('spec 4.4 rule 2, DESIGN 3.3: revocation calls are authenticated with the PS key (RFC 9421)', () => {
  it('sends {iss, jti} with Content-Digest, signed over method, authority, path, signature-key, content-type and content-digest', async () => {
    const keys = await signingKeys();
    let seen: { headers: IncomingHttpHeaders; body: Buffer; url: string } | undefined;
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      seen = { headers: request.headers, body: Buffer.concat(chunks), url: request.url ?? '' };
      response.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/revoke`;
    const client = new RevocationClient({ issuer: ISSUER, keys, timeoutMs: 1_000 });
    expect(await client.revoke(endpoint, TOKEN)).toEqual({ outcome: 'confirmed', httpStatus: 200 });
    await new Promise<void>((resolve) => server.close(() => resolve()));

    expect(JSON.parse(seen!.body.toString('utf8'))).toEqual({ iss: ISSUER, jti: 'jti-1' });
    expect(seen!.headers['signature-key']).toBe(`sig=jwks_uri;id="${ISSUER}";dwk="aauth-person.json";kid="ps-key-1"`);
    const headers = Object.fromEntries(Object.entries(seen!.headers).map(([name, value]) => [name, String(value)]));
    expect(() => verifyContentDigest(headers['content-digest']!, seen!.body)).not.toThrow();
    const verified = await verifyRequestSignature(
      { method: 'POST', url: endpoint, headers },
      {
        label: 'sig',
        requiredComponents: ['@method', '@authority', '@path', 'signature-key', 'content-type', 'content-digest'],
        maxAgeSeconds: 60,
        clock: { now: () => new Date() },
        resolveKey: () => ({ alg: 'ecdsa-p256-sha256', publicKey: { ...keys.publicJwk } }),
      },
    );
    expect(verified.components).toEqual(['@method', '@authority', '@path', 'signature-key', 'content-type', 'content-digest']);
  });
});

describe('spec 4.4 rule 2: revocation calls are rate limited per resource origin', () => {
  it('spaces the calls to one origin at the configured rate and leaves other origins alone', async () => {
    let now = 0;
    const waits: number[] = [];
    const limiter = new ResourceRateLimiter(
      10,
      () => now,
      async (ms) => {
        waits.push(ms);
      },
    );
    for (let index = 0; index < 3; index++) await limiter.acquire('http://127.0.0.1:5000/revoke');
    await limiter.acquire('http://127.0.0.1:6000/revoke');
    expect(waits).toEqual([100, 200]);
    now = 1_000;
    await limiter.acquire('http://127.0.0.1:5000/revoke?x=1');
    expect(waits).toEqual([100, 200]);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import { contentDigest } from '@mission/http-signatures';
import type { RunningService } from '@mission/platform';
import { ALICE_KEY, hwkSignatureKey, principalKey, signedRequest, type TestRequest } from '../testing/signed-request.spec-helper.js';
import { PsClient, type Reply } from '../testing/ps-http.spec-helper.js';
import { startPersonServer, testBaseUrl } from '../testing/run-person-server.js';

const alice = principalKey(ALICE_KEY);
const UNKNOWN_S256 = 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg';
const BODY = JSON.stringify({ operation: 'status', mission_s256: UNKNOWN_S256 });

let tick = 0;

/** A status request by alice whose body travels with `encoding`; `digestOver` picks the bytes its Content-Digest covers. */
function codedRequest(encoding: string, sent: Buffer, digestOver: Buffer): TestRequest {
  const request = signedRequest({
    key: alice,
    signatureKey: hwkSignatureKey(alice),
    signedUrl: testBaseUrl,
    created: Math.floor(Date.now() / 1000) - (tick++ % 30),
    body: BODY,
    headers: { 'content-encoding': encoding, 'content-digest': contentDigest(digestOver) },
  });
  return { ...request, headers: { ...request.headers, 'content-length': String(sent.byteLength) }, rawBody: sent };
}

/**
 * ADR 0014 (RFC 9530 §2, DESIGN 3.2): Content-Digest covers the bytes as received. The PS never decodes a
 * content coding: a coded body is refused with 415 before any signature, digest or mission work.
 */
describe('Content-Encoding and Content-Digest (RFC 9530, DESIGN 3.2, ADR 0014)', () => {
  let dataDir: string;
  let service: RunningService;
  const ps = new PsClient(() => service);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ps-coding-'));
    ({ service } = await startPersonServer(dataDir));
  });

  afterAll(async () => {
    await service.stop('test done');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const refused = (reply: Reply): void => {
    expect(reply.status).toBe(415);
    expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(reply.json).toMatchObject({ error: 'invalid_request' });
  };

  it('DESIGN 3.2, RFC 9530: a gzip body whose Content-Digest is over the inflated JSON is refused with 415 (never verified against inflated bytes)', async () => {
    const plain = Buffer.from(BODY);
    refused(await ps.send(codedRequest('gzip', gzipSync(plain), plain)));
  });

  it('DESIGN 3.2, RFC 9530: a gzip body whose Content-Digest is over the bytes received is refused the same way (415, ADR 0014)', async () => {
    const coded = gzipSync(Buffer.from(BODY));
    refused(await ps.send(codedRequest('gzip', coded, coded)));
    const deflated = deflateSync(Buffer.from(BODY));
    refused(await ps.send(codedRequest('deflate', deflated, deflated)));
  });

  it('DESIGN 3.2: Content-Encoding identity is no coding: the request is answered as without the header', async () => {
    const plain = Buffer.from(BODY);
    const reply = await ps.send(codedRequest('identity', plain, plain));
    expect(reply.status).toBe(404);
    expect(reply.json).toMatchObject({ error: 'mission_not_found' });
  });
});

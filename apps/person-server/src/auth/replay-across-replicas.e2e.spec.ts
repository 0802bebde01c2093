import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningService } from '@mission/platform';
import { openEsdbRig, type EsdbRig } from '@mission/event-store/testing';
import { PsClient, type Reply } from '../testing/ps-http.spec-helper.js';
import { startPersonServer, testBaseUrl } from '../testing/run-person-server.js';
import { ALICE_KEY, hwkSignatureKey, principalKey, signedRequest, type TestRequest } from '../testing/signed-request.spec-helper.js';

const alice = principalKey(ALICE_KEY);
const UNKNOWN_S256 = 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg';

/** A fresh status request by alice, signed once; sending the same object again is a replay of the captured request. */
function capturedStatus(): TestRequest {
  return signedRequest({
    key: alice,
    signatureKey: hwkSignatureKey(alice),
    signedUrl: testBaseUrl,
    created: Math.floor(Date.now() / 1000),
    nonce: `n-${Math.random()}`,
    body: JSON.stringify({ operation: 'status', mission_s256: UNKNOWN_S256 }),
  });
}

const replayRefusal = (reply: Reply): void => {
  expect(reply.status).toBe(401);
  expect(String(reply.headers['signature-error'])).toContain('replayed_signature');
};

/**
 * Issue 12 defect 8 (spec 5.6, DESIGN 3.2): Person Server replicas on one EventStoreDB (the in-process gRPC
 * stand-in, driven by the real client) share the replay check, and it survives a restart.
 */
describe('signature replay across replicas and restarts (issue 12 defect 8, spec 5.6)', () => {
  let rig: EsdbRig;
  const dirs: string[] = [];
  const running: RunningService[] = [];

  async function replica(): Promise<{ service: RunningService; ps: PsClient }> {
    const dataDir = mkdtempSync(join(tmpdir(), 'ps-replica-'));
    dirs.push(dataDir);
    const { service } = await startPersonServer(dataDir, { EVENTSTORE_CONNECTION_STRING: rig.standIn.connectionString });
    running.push(service);
    return { service, ps: new PsClient(() => service) };
  }

  beforeAll(async () => {
    rig = await openEsdbRig();
  });

  afterAll(async () => {
    for (const service of running) await service.stop('test done').catch(() => undefined);
    await rig.dispose();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('spec 5.6: a request accepted by replica 1 is refused when replayed to replica 2, and to a replica started after replica 1 stopped', async () => {
    const one = await replica();
    const two = await replica();
    const first = capturedStatus();
    // Accepted (authenticated) by replica 1: the unknown reference answers mission_not_found.
    expect((await one.ps.send(first)).status).toBe(404);
    replayRefusal(await two.ps.send(first));
    replayRefusal(await one.ps.send(first));

    const second = capturedStatus();
    expect((await two.ps.send(second)).status).toBe(404);
    await one.service.stop('restart');
    const three = await replica();
    replayRefusal(await three.ps.send(first));
    replayRefusal(await three.ps.send(second));
    // A fresh signature is still accepted everywhere.
    expect((await three.ps.send(capturedStatus())).status).toBe(404);
  });
});

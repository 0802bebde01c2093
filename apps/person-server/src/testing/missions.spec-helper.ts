import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore, RecordedEvent } from '@mission/event-store';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import { agentRequest, type TestKey } from './signed-request.spec-helper.js';
import { events as streamEvents, PsClient, type Agent, type Reply } from './ps-http.spec-helper.js';
import { startPersonServer, testBaseUrl } from './run-person-server.js';

/**
 * The fixture of the `e2e/missions.*.e2e.spec.ts` files: one Person Server with the demo config per spec file
 * (Jest loads this module afresh for every file), and the signed requests those specs send to it.
 */
export const RESEARCHER = 'aauth:researcher@agents.example';

/** The running service and its store of the current spec file; set by the `beforeAll` of {@link startMissionsServer}. */
export let service: RunningService;
export let store: EventStore;

const ps = new PsClient(() => service);

/** Starts the Person Server on a fresh DATA_DIR before the file's tests and stops it after them. */
export function startMissionsServer(): void {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ps-missions-'));
    ({ service } = await startPersonServer(dataDir));
    store = service.app.get<EventStore>(EVENT_STORE);
  });
  afterAll(async () => {
    await service.stop('tests finished');
    rmSync(dataDir, { recursive: true, force: true });
  });
}

// Every signature must be unique (replay cache, DESIGN 3.2); Ed25519 is deterministic, so vary `created`.
let tick = 0;
const created = (): number => Math.floor(Date.now() / 1000) - (tick++ % 40);

/** A request signed by `agent` with its Agent Token; `rawBody` is sent as written (member order, duplicates). */
export async function asAgent(agent: Agent, options: { body?: unknown; rawBody?: string; path?: string }): Promise<Reply> {
  const now = Math.floor(Date.now() / 1000);
  const body = options.rawBody ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  const request = await agentRequest({
    agentKey: agent.key,
    signedUrl: testBaseUrl,
    created: created(),
    tokenClaims: { sub: agent.id, iat: now - 10, exp: now + 600 },
    ...(body !== undefined ? { body } : {}),
    ...(options.path !== undefined ? { path: options.path } : {}),
  });
  return ps.send(request);
}

/** A request signed by a Management Principal's key (`hwk`). */
export const asPrincipal = (key: TestKey, options: { body?: unknown; rawBody?: string; path?: string }): Promise<Reply> => ps.asPrincipal(key, options);

/** Proposal → approval by the owning person → poll; returns the Mission Reference digest, the blob and the pending path. */
export async function approvedMission(agent: Agent, options: { owner?: TestKey; expiresAt?: string; description?: string } = {}): Promise<{ s256: string; mission: string; pending: string }> {
  const { s256, mission, pendingPath } = await ps.approvedMission(agent, options);
  return { s256, mission, pending: pendingPath };
}

/** Every event of `stream` in the current file's store. */
export const events = (stream: string): Promise<RecordedEvent[]> => streamEvents(store, stream);

/**
 * Issue 15 item 3 ("keep every in-memory structure bounded"), ADR 0087: the Person Server's mission index (what
 * `POST /missions/list` pages through) with `BENCH_INDEX_SIZES` (1,000, 10,000, 100,000) approved missions, in its
 * SQLite file in a temp DATA_DIR — the app's own projection and store, loaded from its build. For each size:
 * the time to apply the approvals (the rebuild a first start does), the file's size, the heap left after a full GC
 * (with `--expose-gc`), and the median time of one listing page (51 entries, what a page of 50 reads) for an
 * administrator of the tenant (every mission), a person owning 3 of the tenant's 30 agents, and an administrator
 * 90 % of the way down the listing (a late cursor). Missions are spread over 2 tenants and 60 agents; their digests are
 * random keys, as real ones are (the order of inserts into the index's B-trees is what a rebuild costs).
 *
 *   npm run build && node --expose-gc tools/bench/dist/person-server/mission-index.js
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RecordedEvent } from '@mission/event-store';

interface Entry {
  readonly missionS256: string;
  readonly agent: string;
  readonly tenant: string;
  readonly approvedAt: string;
}
type Scope = { tenant: string; agents?: readonly string[] };
interface Projection {
  apply(event: RecordedEvent): void;
  persist(): void;
  close(): void;
  page(scope: Scope, after: Entry | undefined, limit: number): Entry[];
}
interface Modules {
  MissionIndexProjection: new (store: unknown) => Projection;
  MissionIndexStore: { open(path: string): unknown };
}

const SIZES = (process.env['BENCH_INDEX_SIZES'] ?? '1000,10000,100000').split(',').map(Number);
const PAGE = 51;
const SAMPLES = 200;
const AGENTS = 60;

async function load(): Promise<Modules> {
  const dist = resolve('apps/person-server/dist/use-cases/list-missions');
  const projection = (await import(pathToFileURL(join(dist, 'mission-index.projection.js')).href)) as Pick<Modules, 'MissionIndexProjection'>;
  const store = (await import(pathToFileURL(join(dist, 'mission-index.store.js')).href)) as Pick<Modules, 'MissionIndexStore'>;
  return { ...projection, ...store };
}

function approval(n: number): RecordedEvent {
  const agent = `https://agent-${n % AGENTS}.example`;
  const data = { mission_s256: createHash('sha256').update(String(n)).digest('base64url'), agent, tenant: n % AGENTS < AGENTS / 2 ? 'acme' : 'globex', approved_at: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(), approved_by: 'alice' };
  const position = BigInt(n + 1);
  return { streamName: `psmission-${data.mission_s256}`, revision: 0n, position: { commit: position, prepare: position }, id: `e${n}`, type: 'MissionApproved', data, metadata: {}, created: new Date() };
}

/** The file and its WAL (not checkpointed yet after a rebuild). */
function fileBytes(file: string): number {
  return statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
}

function heapMiB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

function medianMicros(run: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const start = process.hrtime.bigint();
    run();
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return times.sort((a, b) => a - b)[Math.floor(SAMPLES / 2)]!;
}

async function main(): Promise<void> {
  const { MissionIndexProjection, MissionIndexStore } = await load();
  if (!(globalThis as { gc?: unknown }).gc) console.log('(run with --expose-gc for the heap figures)');
  console.log('missions  apply ms  file+WAL KiB  heap after GC MiB (Δ from empty)  page µs (median of 200): admin  person (3 agents)  admin, late cursor');
  for (const size of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-mission-index-'));
    try {
      const before = heapMiB();
      const file = join(dir, 'read-models', 'mission-index.sqlite');
      const projection = new MissionIndexProjection(MissionIndexStore.open(file));
      const started = performance.now();
      for (let n = 0; n < size; n++) projection.apply(approval(n));
      projection.persist();
      const applyMs = performance.now() - started;
      const heap = heapMiB() - before;
      const admin = { tenant: 'acme' };
      const person = { tenant: 'acme', agents: ['https://agent-1.example', 'https://agent-7.example', 'https://agent-13.example'] };
      const late = projection.page(admin, undefined, Math.floor(size * 0.45)).at(-1);
      const row = [
        String(size).padStart(8), applyMs.toFixed(0).padStart(9), (fileBytes(file) / 1024).toFixed(0).padStart(13), heap.toFixed(1).padStart(34),
        medianMicros(() => projection.page(admin, undefined, PAGE)).toFixed(0).padStart(34),
        medianMicros(() => projection.page(person, undefined, PAGE)).toFixed(0).padStart(18),
        medianMicros(() => projection.page(admin, late, PAGE)).toFixed(0).padStart(19),
      ];
      console.log(row.join(' '));
      projection.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

await main();

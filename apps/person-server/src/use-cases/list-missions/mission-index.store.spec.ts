import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { ReadModelFileInUseError, type RecordedEvent } from '@mission/event-store';
import { managementRole, type ManagementCaller } from '@mission/ps-domain';
import { MissionIndexProjection, type MissionIndexEntry } from './mission-index.projection.js';
import { compareNewestFirst, MissionIndexStore, type IndexScope } from './mission-index.store.js';

let position = 0n;
const digest = (n: number): string => n.toString(36).padStart(43, 'A');

function event(type: string, data: Record<string, unknown>): RecordedEvent {
  position += 1n;
  return { streamName: `psmission-${String(data['mission_s256'])}`, revision: 0n, position: { commit: position, prepare: position }, id: `e${position}`, type, data: data as RecordedEvent['data'], metadata: {}, created: new Date(1_800_000_000_000 + Number(position)) };
}

function approval(entry: MissionIndexEntry): RecordedEvent {
  return event('MissionApproved', { mission_s256: entry.missionS256, agent: entry.agent, tenant: entry.tenant, approved_at: entry.approvedAt, approved_by: 'alice' });
}

/** The listing's rule without the index: the caller's missions (managementRole), after the cursor, ordered, cut. */
function expectedPage(all: readonly MissionIndexEntry[], scope: IndexScope, after: MissionIndexEntry | undefined, limit: number): MissionIndexEntry[] {
  const caller: ManagementCaller = scope.agents === undefined ? { role: 'admin', id: 'admin', tenant: scope.tenant } : { role: 'person', id: 'person', tenant: scope.tenant, ownedAgents: [...scope.agents] };
  return all.filter((entry) => managementRole(entry, caller) !== undefined && (after === undefined || compareNewestFirst(after, entry) < 0)).sort(compareNewestFirst).slice(0, limit);
}

/** Entries with few tenants, agents and times, so that scopes overlap and times tie. */
const entries = fc.uniqueArray(
  fc.record({
    missionS256: fc.integer({ min: 0, max: 1_000_000 }).map(digest),
    agent: fc.constantFrom('https://agent-a.example', 'https://agent-b.example', 'https://agent-c.example'),
    tenant: fc.constantFrom('acme', 'globex'),
    approvedAt: fc.integer({ min: 0, max: 5 }).map((second) => `2026-11-27T10:00:0${second}.000Z`),
  }),
  { selector: (entry) => entry.missionS256, maxLength: 60 },
);
const scopes: fc.Arbitrary<IndexScope> = fc.oneof(
  fc.record({ tenant: fc.constantFrom('acme', 'globex', 'initech') }),
  fc.record({ tenant: fc.constantFrom('acme', 'globex'), agents: fc.subarray(['https://agent-a.example', 'https://agent-b.example', 'https://agent-c.example', 'https://agent-a.example']) }),
);

describe('MissionIndexStore (ADR 0087: the missions listing from a SQLite index, one page at a time)', () => {
  it('ADR 0040, spec 5.3 / 5.9: a page is exactly the caller’s missions after the cursor, newest first, ties by digest (property)', () => {
    fc.assert(
      fc.property(entries, scopes, fc.nat({ max: 70 }), fc.integer({ min: 1, max: 20 }), (all, scope, cursorIndex, limit) => {
        const projection = new MissionIndexProjection();
        for (const entry of all) projection.apply(approval(entry));
        const ordered = [...all].sort(compareNewestFirst);
        const after = ordered[cursorIndex];
        expect(projection.page(scope, after, limit)).toEqual(expectedPage(all, scope, after, limit));
        projection.close();
      }),
      { numRuns: 300 },
    );
  });

  it('following the last entry of each page lists every mission of the scope exactly once, in order (property)', () => {
    fc.assert(
      fc.property(entries, scopes, fc.integer({ min: 1, max: 7 }), (all, scope, limit) => {
        const projection = new MissionIndexProjection();
        for (const entry of all) projection.apply(approval(entry));
        const listed: MissionIndexEntry[] = [];
        // Bounded: a cursor that does not move on would repeat its page for ever.
        for (let page = projection.page(scope, undefined, limit), pages = 0; page.length > 0 && pages <= all.length; page = projection.page(scope, page[page.length - 1], limit), pages++) listed.push(...page);
        expect(listed).toEqual(expectedPage(all, scope, undefined, Number.MAX_SAFE_INTEGER));
        projection.close();
      }),
      { numRuns: 200 },
    );
  });

  it('an approval applied again (a replay after a crash) changes nothing; other events only move the position', () => {
    const projection = new MissionIndexProjection();
    const entry = { missionS256: digest(1), agent: 'https://agent-a.example', tenant: 'acme', approvedAt: '2026-11-27T10:00:00.000Z' };
    const first = approval(entry);
    projection.apply(first);
    projection.apply({ ...approval({ ...entry, approvedAt: '2026-11-27T11:00:00.000Z' }) });
    const other = event('MissionStatusRead', { mission_s256: entry.missionS256 });
    projection.apply(other);
    expect([projection.size, projection.entry(entry.missionS256), projection.storedPosition()]).toEqual([1, entry, other.position]);
    projection.close();
  });

  describe('its file', () => {
    let dir: string;
    let file: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'mission-index-'));
      file = join(dir, 'read-models', 'mission-index.sqlite');
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const some = (count: number, from = 0): MissionIndexEntry[] =>
      Array.from({ length: count }, (_, i) => ({ missionS256: digest(from + i), agent: 'https://agent-a.example', tenant: 'acme', approvedAt: `2026-11-27T10:${String(Math.floor((from + i) / 60) % 60).padStart(2, '0')}:${String((from + i) % 60).padStart(2, '0')}.000Z` }));

    it('reopened, it lists the same missions and resumes from the stored position', () => {
      const live = new MissionIndexProjection(MissionIndexStore.open(file));
      for (const entry of some(30)) live.apply(approval(entry));
      const page = live.page({ tenant: 'acme' }, undefined, 50);
      const stored = live.storedPosition();
      live.close();
      const reopened = new MissionIndexProjection(MissionIndexStore.open(file));
      expect([reopened.page({ tenant: 'acme' }, undefined, 50), reopened.storedPosition(), reopened.size]).toEqual([page, stored, 30]);
      reopened.close();
    });

    it('a crash with changes not yet committed loses the changes and their position together', () => {
      const live = new MissionIndexProjection(MissionIndexStore.open(file, { commitAfterMs: 60_000 }));
      for (const entry of some(5)) live.apply(approval(entry));
      const committed = live.storedPosition();
      for (const entry of some(5, 5)) live.apply(approval(entry));
      // What a kill -9 leaves now: the committed WAL, not the open transaction.
      const copy = join(dirname(file), 'crashed.sqlite');
      copyFileSync(file, copy);
      if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
      const afterCrash = new MissionIndexProjection(MissionIndexStore.open(copy));
      expect([afterCrash.size, afterCrash.storedPosition()]).toEqual([5, committed]);
      afterCrash.close();
      live.close();
    });

    it('one process per file: a second open while the index is in use fails, naming the file', () => {
      const live = MissionIndexStore.open(file);
      expect(() => MissionIndexStore.open(file)).toThrow(ReadModelFileInUseError);
      expect(() => MissionIndexStore.open(file)).toThrow(`the mission index ${file} is in use by another process: run one Person Server per DATA_DIR`);
      live.close();
      MissionIndexStore.open(file).close();
    });

    it('reset empties the index and forgets its position (the runner rebuilds it from the store)', () => {
      const projection = new MissionIndexProjection(MissionIndexStore.open(file));
      for (const entry of some(3)) projection.apply(approval(entry));
      projection.reset();
      expect([projection.size, projection.page({ tenant: 'acme' }, undefined, 10), projection.storedPosition()]).toEqual([0, [], undefined]);
      projection.close();
    });
  });
});

import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { ReadModelFileInUseError, type RecordedEvent } from '@mission/event-store';
import { PendingProposalsProjection, type PendingProposalEntry } from './pending-proposals.projection.js';
import { comparePending, PendingProposalsStore } from './pending-proposals.store.js';

let position = 0n;
const AGENTS = ['https://agent-a.example', 'https://agent-b.example', 'https://agent-c.example'];

function event(type: string, data: Record<string, unknown>): RecordedEvent {
  position += 1n;
  return { streamName: `psproposal-${String(data['pending_id'])}`, revision: 0n, position: { commit: position, prepare: position }, id: `e${position}`, type, data: data as RecordedEvent['data'], metadata: {}, created: new Date(1_800_000_000_000 + Number(position)) };
}
const submitted = (entry: PendingProposalEntry): RecordedEvent => event('ProposalSubmitted', { pending_id: entry.pendingId, agent: entry.agent, submitted_at: entry.submittedAt });
const decided = (pendingId: string, approved: boolean): RecordedEvent => event(approved ? 'ProposalApproved' : 'ProposalDeclined', { pending_id: pendingId });

/** Proposals over few agents and times (ties), each maybe decided afterwards. */
const histories = fc.uniqueArray(
  fc.record({
    pendingId: fc.integer({ min: 0, max: 1_000_000 }).map((n) => `p${n.toString(36).padStart(20, '0')}`),
    agent: fc.constantFrom(...AGENTS),
    submittedAt: fc.integer({ min: 0, max: 5 }).map((second) => `2026-11-27T10:00:0${second}.000Z`),
    decision: fc.constantFrom(undefined, 'approved', 'declined'),
  }),
  { selector: (entry) => entry.pendingId, maxLength: 50 },
);

function projectionOf(history: ReadonlyArray<PendingProposalEntry & { decision?: string }>): PendingProposalsProjection {
  const projection = new PendingProposalsProjection();
  for (const entry of history) projection.apply(submitted(entry));
  for (const entry of history) if (entry.decision !== undefined) projection.apply(decided(entry.pendingId, entry.decision === 'approved'));
  return projection;
}

const pendingOf = (history: ReadonlyArray<PendingProposalEntry & { decision?: string }>, agents: readonly string[]): PendingProposalEntry[] =>
  history.filter((entry) => entry.decision === undefined && agents.includes(entry.agent)).map(({ pendingId, agent, submittedAt }) => ({ pendingId, agent, submittedAt })).sort(comparePending);

describe('PendingProposalsStore (ADR 0088: pending proposals in a SQLite file, one page at a time)', () => {
  it('ADR 0034: a page is exactly the agents’ undecided proposals after the cursor, oldest first, ties by id (property)', () => {
    fc.assert(
      fc.property(histories, fc.subarray(AGENTS), fc.nat({ max: 60 }), fc.integer({ min: 1, max: 20 }), (history, agents, cursorIndex, limit) => {
        const projection = projectionOf(history);
        const all = pendingOf(history, agents);
        const after = [...history].sort(comparePending)[cursorIndex];
        expect(projection.page(agents, after, limit)).toEqual(all.filter((entry) => after === undefined || comparePending(entry, after) > 0).slice(0, limit));
        projection.close();
      }),
      { numRuns: 300 },
    );
  });

  it('following the last entry of each page lists every undecided proposal of the agents exactly once, in order (property)', () => {
    fc.assert(
      fc.property(histories, fc.subarray(AGENTS), fc.integer({ min: 1, max: 7 }), (history, agents, limit) => {
        const projection = projectionOf(history);
        const listed: PendingProposalEntry[] = [];
        // Bounded: a cursor that does not move on would repeat its page for ever.
        for (let page = projection.page(agents, undefined, limit), pages = 0; page.length > 0 && pages <= history.length; page = projection.page(agents, page[page.length - 1], limit), pages++) listed.push(...page);
        expect(listed).toEqual(pendingOf(history, agents));
        projection.close();
      }),
      { numRuns: 200 },
    );
  });

  it('events applied again (a replay after a crash) change nothing: a decided proposal stays decided', () => {
    const projection = new PendingProposalsProjection();
    const entry = { pendingId: 'p1', agent: AGENTS[0]!, submittedAt: '2026-11-27T10:00:00.000Z' };
    const events = [submitted(entry), decided('p1', true), submitted({ ...entry, pendingId: 'p2' })];
    for (const replayed of [...events, ...events]) projection.apply(replayed);
    expect([projection.size, projection.page(AGENTS, undefined, 10).map((pending) => pending.pendingId)]).toEqual([1, ['p2']]);
    projection.close();
  });

  describe('its file', () => {
    let dir: string;
    let file: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'pending-proposals-'));
      file = join(dir, 'read-models', 'pending-proposals.sqlite');
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const entry = (n: number): PendingProposalEntry => ({ pendingId: `p${n}`, agent: AGENTS[n % 3]!, submittedAt: `2026-11-27T10:00:${String(n % 60).padStart(2, '0')}.000Z` });

    it('reopened, it lists the same proposals and resumes from the stored position; uncommitted changes are lost with their position', () => {
      const live = new PendingProposalsProjection(PendingProposalsStore.open(file, { commitAfterMs: 60_000 }));
      for (let n = 0; n < 6; n++) live.apply(submitted(entry(n)));
      live.apply(decided('p0', false));
      const committed = live.storedPosition();
      const page = live.page(AGENTS, undefined, 50);
      live.apply(submitted(entry(6)));
      // What a kill -9 leaves now: the committed WAL, not the open transaction.
      const copy = join(dirname(file), 'crashed.sqlite');
      copyFileSync(file, copy);
      if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
      const afterCrash = new PendingProposalsProjection(PendingProposalsStore.open(copy));
      expect([afterCrash.page(AGENTS, undefined, 50), afterCrash.storedPosition()]).toEqual([page, committed]);
      afterCrash.close();
      live.close();
    });

    it('one process per file: a second open while the model is in use fails, naming the file', () => {
      const live = PendingProposalsStore.open(file);
      expect(() => PendingProposalsStore.open(file)).toThrow(ReadModelFileInUseError);
      expect(() => PendingProposalsStore.open(file)).toThrow(`the pending proposals model ${file} is in use by another process: run one Person Server per DATA_DIR`);
      live.close();
    });
  });
});

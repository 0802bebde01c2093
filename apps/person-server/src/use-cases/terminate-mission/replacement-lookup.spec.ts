import type { EventStore, ReadStreamOptions } from '@mission/event-store';
import { ProbeLimiter } from '../../abuse/probe-limiter.js';
import type { SecurityAudit, SecurityEventInput } from '../../abuse/security-audit.js';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import type { MissionLog } from '../../store/mission-log.js';
import { ReplacementLookup } from './replacement-lookup.js';

const MISSION = 'ZXhhbXBsZS1taXNzaW9uLWJsb2ItZGlnZXN0LTAwMDA';
const FOREIGN = 'Zm9yZWlnbi1taXNzaW9uLWJsb2ItZGlnZXN0LTAwMDA';
const ABSENT = 'YWJzZW50LW1pc3Npb24tYmxvYi1kaWdlc3QtMDAwMDA';
const ALICE: AuthenticatedCaller = { kind: 'principal', id: 'alice', role: 'person', tenant: 't1', agents: ['aauth:assistant@agents.example'] };

/** A store where FOREIGN is another tenant's mission with a long history; every read is recorded. */
function rig() {
  const reads: Array<ReadStreamOptions & { name: string }> = [];
  let delivered = 0;
  const foreign = [{ type: 'MissionApproved', data: { agent: 'aauth:helper@agents.other', tenant: 't2' } }, ...Array.from({ length: 5_000 }, () => ({ type: 'MissionStatusRead', data: {} }))];
  const store = {
    async *readStream(name: string, options?: ReadStreamOptions) {
      reads.push({ name, ...options });
      const events = name === `psmission-${FOREIGN}` ? foreign : [];
      for (const event of events.slice(0, options?.maxCount ?? events.length)) {
        delivered++;
        yield event;
      }
    },
  } as unknown as EventStore;
  const folds: string[] = [];
  const missionLog = { state: async (s256: string) => (folds.push(s256), { status: 'none' }) } as unknown as MissionLog;
  const audited: SecurityEventInput[] = [];
  const audit = { record: (event: SecurityEventInput) => audited.push(event) } as unknown as SecurityAudit;
  const now = new Date('2026-11-22T10:00:00Z');
  const probes = new ProbeLimiter({ now: () => now }, 2);
  const lookup = new ReplacementLookup(store, { now: () => now }, missionLog, audit, probes);
  return { lookup, reads, folds, audited, probes, delivered: () => delivered };
}

describe('superseded replacement lookup (spec 4.2 rule 1, 5.9; issue 12 defect 5)', () => {
  it('spec 5.9: a foreign mission with a long history and an absent one cost the same one-event read — no history is folded', async () => {
    const foreign = rig();
    const absent = rig();
    expect(await foreign.lookup.resolves(ALICE, FOREIGN, MISSION, {})).toBe(false);
    expect(await absent.lookup.resolves(ALICE, ABSENT, MISSION, {})).toBe(false);
    expect(foreign.reads).toEqual([{ name: `psmission-${FOREIGN}`, maxCount: 1 }]);
    expect(absent.reads).toEqual([
      { name: `psmission-${ABSENT}`, maxCount: 1 },
      { name: 'security-audit', maxCount: 1 },
    ]);
    expect([foreign.delivered(), foreign.folds, absent.folds]).toEqual([1, [], []]);
  });

  it('spec 5.9: each failure is security-logged (reference as keyed digest input only) and counts against the failed-lookup allowance', async () => {
    const { lookup, audited, probes } = rig();
    await lookup.resolves(ALICE, FOREIGN, MISSION, {});
    await lookup.resolves(ALICE, ABSENT, MISSION, {});
    expect(audited.map((event) => [event.kind, event.reason, event.missionS256])).toEqual([
      ['replacement_probe', 'not_authorized', FOREIGN],
      ['replacement_probe', 'absent', ABSENT],
    ]);
    await lookup.resolves(ALICE, ABSENT, MISSION, {});
    expect(() => probes.check('principal:alice')).toThrow();
  });

  it('spec 4.2 rule 1: the mission itself and a missing replacement resolve to nothing without any read', async () => {
    const { lookup, reads } = rig();
    expect(await lookup.resolves(ALICE, MISSION, MISSION, {})).toBe(false);
    expect(await lookup.resolves(ALICE, undefined, MISSION, {})).toBe(false);
    expect(reads).toEqual([]);
  });
});

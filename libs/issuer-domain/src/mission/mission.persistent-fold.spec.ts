import fc from 'fast-check';
import { missionIdFromBytes } from './mission-id.js';
import { missionDecider } from './mission.decider.js';
import type { MissionEvent } from './mission.events.js';
import { initialMissionState, missionExists, nonceKey, type AttachedChild, type Mission, type MissionState, type NonceRecord } from './mission.state.js';
import { attachmentExtras, CLIENT, missionCreated, MISSION_ID } from '../testing/fixtures.js';

/**
 * ADR 0080: a parent's children and its nonces are persistent maps, so that folding a parent with n children costs
 * O(n log n) instead of O(n²). What must not change with that: every state the fold produced stays exactly what it
 * was when it was produced (a decision over a state read earlier — a cached parent, the state a creation checked
 * `max_children` against — must never see a child attached later), and the children, their order and the nonces
 * are those a plain copy-per-event fold gives.
 */

const OCCURRED_AT = '2026-11-22T10:00:00.000Z';
const childId = (n: number): string => missionIdFromBytes(new Uint8Array(16).fill(40 + n));
const ACTORS = [CLIENT, { id: 'agent-b', role: 'client' }];
/** The attachment's grant and evidence members: the fold reads none of them. */
const ATTACHMENT_EXTRAS = attachmentExtras(missionIdFromBytes(new Uint8Array(16).fill(39)), 1, new Date(OCCURRED_AT)).data;

type Step =
  | { readonly kind: 'attach'; readonly child: number; readonly entries: number[] }
  | { readonly kind: 'detach'; readonly child: number }
  | { readonly kind: 'transition'; readonly actor: number; readonly nonce: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('attach' as const), child: fc.nat(24), entries: fc.array(fc.nat(3), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('detach' as const), child: fc.nat(24) }),
  fc.record({ kind: fc.constant('transition' as const), actor: fc.nat(1), nonce: fc.nat(5) }),
);

/** `size: 'max'`: fast-check's default size keeps arrays near 10 steps, too few children for a persistent map's larger nodes. */
const steps = (maxLength: number): fc.Arbitrary<Step[]> => fc.array(step, { maxLength, size: 'max' });

function eventOf(s: Step, version: number): MissionEvent {
  if (s.kind === 'attach') {
    return {
      type: 'ChildMissionAttached',
      data: {
        mission_id: MISSION_ID, child_mission_id: childId(s.child), child_client_id: `child-${s.child}`, parent_entry_indexes: s.entries,
        occurred_at: OCCURRED_AT, actor: CLIENT, ...ATTACHMENT_EXTRAS,
      },
    };
  }
  if (s.kind === 'detach') {
    return { type: 'ChildMissionDetached', data: { mission_id: MISSION_ID, child_mission_id: childId(s.child), state: 'completed', occurred_at: OCCURRED_AT } } as MissionEvent;
  }
  const suspended = version % 2 === 0;
  return {
    type: suspended ? 'MissionSuspended' : 'MissionResumed',
    data: {
      mission_id: MISSION_ID, actor: ACTORS[s.actor]!, reason: 'test', previous_state: suspended ? 'active' : 'suspended', state: suspended ? 'suspended' : 'active',
      version, occurred_at: OCCURRED_AT, nonce: `nonce-${s.nonce}`,
    },
  } as MissionEvent;
}

const entriesOf = <V>(map: ReadonlyMap<string, V>): [string, V][] => [...map].map(([key, value]) => [key, structuredClone(value)]);
const byKey = <V>(entries: [string, V][]): [string, V][] => entries.sort(([a], [b]) => (a < b ? -1 : 1));
const snapshot = (state: MissionState): unknown =>
  missionExists(state)
    ? { children: entriesOf(state.children), open: byKey(entriesOf(state.openChildren)), nonces: byKey(entriesOf(state.nonces)), version: state.version }
    : 'none';

/** The fold before ADR 0080, on plain Maps (insertion order; a detach of an unknown or terminal child changes nothing). */
function modelFold(sequence: readonly Step[], children = new Map<string, AttachedChild>(), nonces = new Map<string, NonceRecord>()): unknown {
  let version = 1;
  for (const s of sequence) {
    if (s.kind === 'attach') children.set(childId(s.child), { parentEntryIndexes: [...s.entries], terminal: false });
    else if (s.kind === 'detach') {
      const existing = children.get(childId(s.child));
      if (existing && !existing.terminal) children.set(childId(s.child), { ...existing, terminal: true });
    } else {
      version += 1;
      const event = eventOf(s, version).data as { state: NonceRecord['state']; version: number };
      nonces.set(nonceKey(ACTORS[s.actor]!.id, `nonce-${s.nonce}`), { operation: version % 2 === 0 ? 'suspend' : 'resume', state: event.state, version });
    }
  }
  // The open children are those not terminal (their order is not part of the contract: compared by key).
  return { children: [...children], open: byKey([...children].filter(([, child]) => !child.terminal)), nonces: byKey([...nonces]), version };
}

/** Folds the steps after `start`, keeping every intermediate state with a snapshot taken when it was produced. */
function foldKeepingEveryState(start: MissionState, sequence: readonly Step[]): { final: MissionState; history: { state: MissionState; then: unknown }[] } {
  let state = start;
  let version = missionExists(start) ? start.version : 1;
  const history = [{ state, then: snapshot(state) }];
  for (const s of sequence) {
    if (s.kind === 'transition') version += 1;
    state = missionDecider.evolve(state, eventOf(s, version));
    history.push({ state, then: snapshot(state) });
  }
  return { final: state, history };
}

describe('mission fold on persistent maps (ADR 0080; DESIGN 2.4 "Serialization", spec 2.4 rule 2)', () => {
  const created = missionDecider.evolve(initialMissionState, missionCreated);

  it('gives the children (in attachment order), their flags, the open ones and the nonces that a copy-per-event fold gives', () => {
    fc.assert(
      fc.property(steps(80), (sequence) => {
        expect(snapshot(foldKeepingEveryState(created, sequence).final)).toEqual(modelFold(sequence));
      }),
      { numRuns: 300 },
    );
  });

  it('never changes a state it produced earlier: a later attachment, detachment or nonce is invisible to it', () => {
    fc.assert(
      fc.property(steps(80), (sequence) => {
        const { history } = foldKeepingEveryState(created, sequence);
        for (const { state, then } of history) expect(snapshot(state)).toEqual(then);
      }),
      { numRuns: 150 },
    );
  });

  it('two folds branching from one shared state do not see each other (a cached parent decided on twice at once)', () => {
    fc.assert(
      fc.property(steps(30), steps(30), steps(30), (common, left, right) => {
        const shared = foldKeepingEveryState(created, common).final;
        const sharedThen = snapshot(shared);
        const leftState = foldKeepingEveryState(shared, left).final;
        const rightState = foldKeepingEveryState(shared, right).final;
        expect(snapshot(shared)).toEqual(sharedThen);
        expect(snapshot(leftState)).toEqual(modelFold([...common, ...left]));
        expect(snapshot(rightState)).toEqual(modelFold([...common, ...right]));
      }),
      { numRuns: 200 },
    );
  });

  it('accepts a state whose children and nonces are plain Maps (as fixtures build it) and leaves those Maps unchanged', () => {
    const children = new Map<string, AttachedChild>([[childId(1), { parentEntryIndexes: [0], terminal: false }], [childId(2), { parentEntryIndexes: [1], terminal: true }]]);
    const nonces = new Map<string, NonceRecord>([[nonceKey(CLIENT.id, 'nonce-9'), { operation: 'suspend', state: 'suspended', version: 1 }]]);
    const fixture: Mission = { ...(created as Mission), children, openChildren: new Map([...children].filter(([, child]) => !child.terminal)), nonces };
    const sequence: Step[] = [{ kind: 'attach', child: 3, entries: [0] }, { kind: 'detach', child: 1 }, { kind: 'transition', actor: 1, nonce: 0 }];
    const before = [entriesOf(children), entriesOf(nonces)];
    const after = foldKeepingEveryState(fixture, sequence).final;
    expect([entriesOf(children), entriesOf(nonces)]).toEqual(before);
    expect(snapshot(after)).toEqual(modelFold(sequence, new Map(children), new Map(nonces)));
  });
});

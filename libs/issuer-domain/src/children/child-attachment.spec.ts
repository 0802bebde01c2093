import { fold, given } from '@mission/decider';
import { authorityHash } from '../authority-set/authority-hash.js';
import type { AuthoritySet } from '../authority-set/authority-set.js';
import { InvalidCommandError } from '../shared/errors.js';
import type { AttachChild, DetachChild } from '../mission/mission.commands.js';
import { missionDecider } from '../mission/mission.decider.js';
import { MissionNotActiveError, MissionNotFoundError } from '../mission/mission.errors.js';
import type { ChildMissionAttached, ChildMissionDetached, MissionEvent } from '../mission/mission.events.js';
import { missionIdFromBytes } from '../mission/mission-id.js';
import { initialMissionState, missionExists, type MissionState } from '../mission/mission.state.js';
import { at, attachmentExtras, CLIENT, createCommand, EXPIRES_AT, ISSUER, MISSION_ID } from '../testing/fixtures.js';
import { FanOutExceededError, ParentNotActiveError } from './child-attachment.errors.js';
import { activeChildCount } from './fan-out.js';

const T1 = at('2026-11-22T10:00:00.000Z');
const T2 = at('2026-11-22T11:00:00.000Z');

/** Entry 0: max_children 3; entry 1: max_children 1; entry 2: children without max_children; entry 3: not delegable. */
const PARENT_SET: AuthoritySet = [
  { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { children: { max_children: 3 } } },
  { type: 'mission_resource_access', resource: 'https://erp.example.com/payments', actions: ['payments.read'], delegation: { children: { max_children: 1 } } },
  { type: 'mission_resource_access', resource: 'https://erp.example.com/reports', actions: ['reports.read'], delegation: { children: {} } },
  { type: 'mission_resource_access', resource: 'https://erp.example.com/vendors', actions: ['vendors.read'] },
];
const parentCreated = missionDecider.decide(createCommand({ authoritySet: PARENT_SET, authorityHash: authorityHash(ISSUER, PARENT_SET) }), initialMissionState)[0]!;

const childId = (n: number): string => missionIdFromBytes(new Uint8Array(16).fill(10 + n));

const attach = (n: number, parentEntryIndexes: number[] = [0], now = T1): AttachChild => ({
  type: 'AttachChild',
  childMissionId: childId(n),
  childClientId: `child-agent-${n}`,
  parentEntryIndexes,
  actor: CLIENT,
  now,
  ...attachmentExtras(childId(n), n, now, PARENT_SET, parentEntryIndexes).command,
});
const attached = (n: number, parentEntryIndexes: number[] = [0], now = T1): ChildMissionAttached => ({
  type: 'ChildMissionAttached',
  data: {
    mission_id: MISSION_ID,
    child_mission_id: childId(n),
    child_client_id: `child-agent-${n}`,
    parent_entry_indexes: parentEntryIndexes,
    occurred_at: now.toISOString(),
    actor: CLIENT,
    ...attachmentExtras(childId(n), n, now, PARENT_SET, parentEntryIndexes).data,
  },
});
const reachedTerminal = (n: number, state: DetachChild['state'] = 'completed'): DetachChild => ({ type: 'DetachChild', childMissionId: childId(n), state, now: T2 });
const detached = (n: number, state: ChildMissionDetached['data']['state'] = 'completed'): ChildMissionDetached => ({
  type: 'ChildMissionDetached',
  data: { mission_id: MISSION_ID, child_mission_id: childId(n), state, occurred_at: T2.toISOString() },
});

function transition(type: 'MissionSuspended' | 'MissionRevoked', state: 'suspended' | 'revoked'): MissionEvent {
  return {
    type,
    data: { mission_id: MISSION_ID, actor: CLIENT, reason: 'because', previous_state: 'active', state, version: 2, occurred_at: T1.toISOString() },
  } as MissionEvent;
}

const stateOf = (history: MissionEvent[]): MissionState => fold(missionDecider, [parentCreated, ...history]);

describe('Child attachment on the parent stream (DESIGN 2.4 "Serialization", spec 2.4, spec 8 max_children)', () => {
  describe('AttachChild', () => {
    it('DESIGN 2.4: attaches a child under an active parent with its justifying parent entries', () => {
      const state = given(missionDecider, [parentCreated]).when(attach(1, [0, 2, 0])).then([attached(1, [0, 2, 0])]);
      expect(missionExists(state) && state.children.get(childId(1))).toEqual({ parentEntryIndexes: [0, 2, 0], terminal: false });
      expect(activeChildCount(state, 0)).toBe(1);
      expect(activeChildCount(state, 2)).toBe(1);
      expect(activeChildCount(state, 1)).toBe(0);
    });

    it.each([
      ['suspended', [transition('MissionSuspended', 'suspended')]],
      ['revoked', [transition('MissionRevoked', 'revoked')]],
    ] as const)('spec 4.1 step 4/10, spec 7 parent_not_active: refused under a %s parent', (state, history) => {
      given(missionDecider, [parentCreated, ...history]).when(attach(1)).thenThrows(ParentNotActiveError, (error) => {
        expect(error).toBeInstanceOf(MissionNotActiveError);
        expect(error).toMatchObject({ state, missionDenialReason: 'parent_not_active', error: 'invalid_grant', missionError: `mission_${state}` });
      });
    });

    it('DESIGN 2.3/2.4: refused under a parent expired by now, before the expiry is recorded', () => {
      given(missionDecider, [parentCreated]).when(attach(1, [0], EXPIRES_AT)).thenThrows(ParentNotActiveError, (error) => {
        expect(error).toMatchObject({ state: 'expired', missionDenialReason: 'parent_not_active' });
      });
    });

    it('spec 8 max_children: 3 → the fourth attach is refused with FanOutExceededError (fanout_exceeded)', () => {
      given(missionDecider, [parentCreated, attached(1), attached(2), attached(3)])
        .when(attach(4))
        .thenThrows(FanOutExceededError, (error) => expect(error).toMatchObject({ parentEntryIndex: 0, maxChildren: 3, missionDenialReason: 'fanout_exceeded', error: 'invalid_request' }));
    });

    it('spec 2.4 rule 2 / spec 8: after one child reached a terminal state, a new attach succeeds', () => {
      const history = [parentCreated, attached(1), attached(2), attached(3)];
      const afterDetach = given(missionDecider, history).when(reachedTerminal(2, 'revoked')).then([detached(2, 'revoked')]);
      expect(activeChildCount(afterDetach, 0)).toBe(2);
      given(missionDecider, [...history, detached(2, 'revoked')]).when(attach(4)).then([attached(4)]);
      given(missionDecider, [...history, detached(2, 'revoked'), attached(4)]).when(attach(5)).thenThrows(FanOutExceededError);
    });

    it('spec 2.4 / spec 8: counts are per parent entry', () => {
      const history = [parentCreated, attached(1, [1]), attached(2), attached(3)];
      // Entry 1 (max 1) is full, entry 0 (max 3) has two: a child drawing on entry 0 only fits.
      given(missionDecider, history).when(attach(4, [0])).then([attached(4, [0])]);
      given(missionDecider, history).when(attach(4, [1])).thenThrows(FanOutExceededError, (error) => expect(error).toMatchObject({ parentEntryIndex: 1, maxChildren: 1 }));
      // A child drawing on both is refused as a whole when any of its entries is full.
      given(missionDecider, history).when(attach(4, [0, 1])).thenThrows(FanOutExceededError, (error) => expect(error).toMatchObject({ parentEntryIndex: 1 }));
      // A child justified by entry 0 for two of its entries counts once.
      given(missionDecider, history).when(attach(4, [0, 0])).then([attached(4, [0, 0])]);
      expect(activeChildCount(stateOf([attached(1, [1]), attached(2), attached(3), attached(4, [0, 0])]), 0)).toBe(3);
    });

    it('spec 2.4 rule 4: an entry with children but no max_children bounds no breadth', () => {
      const many = Array.from({ length: 20 }, (_, n) => attached(n, [2]));
      given(missionDecider, [parentCreated, ...many]).when(attach(21, [2])).then([attached(21, [2])]);
    });

    it('a retry of the same attachment decides nothing; another attachment under the same child id is a bug', () => {
      given(missionDecider, [parentCreated, attached(1)]).when(attach(1)).thenNothingHappens();
      given(missionDecider, [parentCreated, attached(1)]).when(attach(1, [2])).thenThrows(InvalidCommandError);
      given(missionDecider, [parentCreated, attached(1), detached(1)]).when(attach(1)).thenThrows(InvalidCommandError);
    });

    it('refuses malformed commands with InvalidCommandError (the application built them)', () => {
      const bad: Partial<AttachChild>[] = [
        { parentEntryIndexes: [] },
        { parentEntryIndexes: [4] },
        { parentEntryIndexes: [-1] },
        { parentEntryIndexes: [0.5] },
        { parentEntryIndexes: [3] }, // entry 3 carries no delegation.children
        { childMissionId: 'not-a-mission-id' },
        { childMissionId: MISSION_ID },
        { childClientId: '' },
      ];
      for (const overrides of bad) given(missionDecider, [parentCreated]).when({ ...attach(1), ...overrides }).thenThrows(InvalidCommandError);
    });

    it('refuses on a missing parent with MissionNotFoundError', () => {
      given(missionDecider).when(attach(1)).thenThrows(MissionNotFoundError);
    });
  });

  describe('DetachChild (a child reached a terminal state)', () => {
    it('spec 2.4 rule 2: records ChildMissionDetached and frees the slot', () => {
      const state = given(missionDecider, [parentCreated, attached(1)]).when(reachedTerminal(1, 'cascaded')).then([detached(1, 'cascaded')]);
      expect(missionExists(state) && state.children.get(childId(1))).toEqual({ parentEntryIndexes: [0], terminal: true });
      expect(activeChildCount(state, 0)).toBe(0);
    });

    it('is idempotent: an unknown or already detached child decides nothing', () => {
      given(missionDecider, [parentCreated]).when(reachedTerminal(1)).thenNothingHappens();
      given(missionDecider, [parentCreated, attached(1), detached(1)]).when(reachedTerminal(1)).thenNothingHappens();
    });

    it('is recorded also when the parent is no longer active (it only frees a slot)', () => {
      given(missionDecider, [parentCreated, attached(1), transition('MissionRevoked', 'revoked')]).when(reachedTerminal(1)).then([detached(1)]);
    });

    it('refuses a non-terminal state with InvalidCommandError', () => {
      given(missionDecider, [parentCreated, attached(1)])
        .when({ ...reachedTerminal(1), state: 'suspended' as DetachChild['state'] })
        .thenThrows(InvalidCommandError);
    });
  });

  it('DESIGN 2.3: attachment and detachment are not lifecycle transitions — version and updatedAt are unchanged', () => {
    const before = stateOf([]);
    const after = stateOf([attached(1), attached(2), detached(1)]);
    if (!missionExists(before) || !missionExists(after)) throw new Error('no mission');
    expect(after.version).toBe(1);
    expect(after.updatedAt).toEqual(before.updatedAt);
    expect(after.lifecycle).toBe('active');
    // The next lifecycle transition is version 2, as without children.
    given(missionDecider, [parentCreated, attached(1), detached(1)])
      .when({ type: 'ChangeMissionLifecycle', operation: 'suspend', actor: CLIENT, reason: 'because', now: T1, expectedVersion: 1 })
      .then([transition('MissionSuspended', 'suspended')].map((event) => ({ ...event, data: { ...event.data, expected_version: 1 } }) as MissionEvent));
  });

  it('activeChildCount is 0 without a mission', () => {
    expect(activeChildCount(initialMissionState, 0)).toBe(0);
  });
});

import { fold, given } from '@mission/decider';
import { authorityHash } from '../authority-set/authority-hash.js';
import type { AuthoritySet } from '../authority-set/authority-set.js';
import { activeChildCount } from '../children/fan-out.js';
import { InvalidCommandError } from '../shared/errors.js';
import {
  ADMIN,
  at,
  attachmentExtras,
  CASCADE_PROCESS,
  CLIENT,
  createCommand,
  EXPIRES_AT,
  EXPIRY_PROCESS,
  ISSUER,
  MISSION_ID,
  OTHER_MISSION_ID,
  parentLink,
} from '../testing/fixtures.js';
import type { CascadeMission, ChangeMissionLifecycle } from './mission.commands.js';
import { missionDecider } from './mission.decider.js';
import { MissionNotActiveError, MissionNotFoundError } from './mission.errors.js';
import { ParentNotActiveError } from '../children/child-attachment.errors.js';
import type { ChildMissionAttached, ChildMissionDetached, MissionCascaded, MissionCascadedBeforeCreation, MissionEvent, MissionExpired, MissionLifecycleEvent } from './mission.events.js';
import { assertDerivable, effectiveState, initialMissionState, missionExists, terminalSince, type Mission, type MissionState } from './mission.state.js';
import { missionIdFromBytes } from './mission-id.js';
import type { LifecycleOperation, MissionLifecycleState, TerminalMissionState } from './mission-lifecycle.js';

const T1 = at('2026-11-22T10:00:00.000Z');
const T2 = at('2026-11-22T11:00:00.000Z');
const T3 = at('2026-11-22T12:00:00.000Z');
const CHILD_EXPIRES_AT = at('2026-11-22T15:00:00.000Z');
const grandchildId = (n: number): string => missionIdFromBytes(new Uint8Array(16).fill(30 + n));

/** The mission under test (MISSION_ID) may have children of its own: its entry carries `children`. */
const SET: AuthoritySet = [
  { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { children: { max_children: 5, max_child_depth: 2 } } },
];
const HASH = authorityHash(ISSUER, SET);

/** MISSION_ID as a child of OTHER_MISSION_ID (spec 2.3 parent member). */
const childCreated = missionDecider.decide(createCommand({ authoritySet: SET, authorityHash: HASH, expiresAt: CHILD_EXPIRES_AT, parent: parentLink() }), initialMissionState)[0]!;
/** MISSION_ID as a root mission. */
const rootCreated = missionDecider.decide(createCommand({ authoritySet: SET, authorityHash: HASH }), initialMissionState)[0]!;

const attached = (n: number): ChildMissionAttached => ({
  type: 'ChildMissionAttached',
  data: {
    mission_id: MISSION_ID,
    child_mission_id: grandchildId(n),
    child_client_id: `child-agent-${n}`,
    parent_entry_indexes: [0],
    occurred_at: T1.toISOString(),
    actor: CLIENT,
    ...attachmentExtras(grandchildId(n), n, T1).data,
  },
});
const detached = (n: number, state: TerminalMissionState = 'completed'): ChildMissionDetached => ({
  type: 'ChildMissionDetached',
  data: { mission_id: MISSION_ID, child_mission_id: grandchildId(n), state, occurred_at: T1.toISOString() },
});

/** The parent ended at T2 unless told otherwise. */
const cascade = (overrides: Partial<CascadeMission> = {}): CascadeMission => ({
  type: 'CascadeMission',
  actor: CASCADE_PROCESS,
  missionId: MISSION_ID,
  parentMissionId: OTHER_MISSION_ID,
  parentState: 'revoked',
  parentTerminalAt: T2,
  now: T2,
  ...overrides,
});
function cascaded(previous: MissionLifecycleState, version: number, parentState: TerminalMissionState = 'revoked', extra: { open_children?: number; effective_at?: string } = {}, now = T2): MissionCascaded {
  return {
    type: 'MissionCascaded',
    data: {
      mission_id: MISSION_ID,
      actor: CASCADE_PROCESS,
      reason: `parent mission ${parentState}`,
      previous_state: previous,
      state: 'cascaded',
      version,
      occurred_at: now.toISOString(),
      trigger: { mission_id: OTHER_MISSION_ID, state: parentState },
      effective_at: T2.toISOString(),
      parent_id: OTHER_MISSION_ID,
      ...extra,
    },
  };
}

const op = (operation: LifecycleOperation, now = T1): ChangeMissionLifecycle => ({ type: 'ChangeMissionLifecycle', operation, actor: CLIENT, reason: `please ${operation}`, now });
const EVENT_TYPES = { suspend: 'MissionSuspended', resume: 'MissionResumed', revoke: 'MissionRevoked', complete: 'MissionCompleted' } as const;
function transition(
  type: LifecycleOperation,
  previous: MissionLifecycleState,
  state: MissionLifecycleState,
  version: number,
  extra: { parent_id?: string; open_children?: number } = {},
  now = T1,
): MissionLifecycleEvent {
  return {
    type: EVENT_TYPES[type],
    data: { mission_id: MISSION_ID, actor: CLIENT, reason: `please ${type}`, previous_state: previous, state, version, occurred_at: now.toISOString(), ...extra },
  } as MissionLifecycleEvent;
}
function expired(previous: MissionLifecycleState, version: number, expiresAt: Date, extra: { parent_id?: string; open_children?: number } = {}, recordedAt = expiresAt, actor = EXPIRY_PROCESS): MissionExpired {
  return {
    type: 'MissionExpired',
    data: {
      mission_id: MISSION_ID,
      actor,
      reason: 'expires_at reached',
      previous_state: previous,
      state: 'expired',
      version,
      occurred_at: recordedAt.toISOString(),
      expires_at: expiresAt.toISOString(),
      ...extra,
    },
  };
}

const stateAfter = (state: MissionState): Mission => {
  if (!missionExists(state)) throw new Error('expected a mission');
  return state;
};

describe('Mission decider: immediate cascade (spec 3.1 cascaded, spec 3.2, spec 6 item 1)', () => {
  describe('CascadeMission', () => {
    it.each(['revoked', 'expired', 'completed', 'superseded', 'cascaded'] as const)(
      'spec 3.2 row 1: a %s parent moves an active child to cascaded (version + 1, previous_state, trigger, parent_id)',
      (parentState) => {
        const state = stateAfter(given(missionDecider, [childCreated]).when(cascade({ parentState })).then([cascaded('active', 2, parentState)]));
        expect(state).toMatchObject({ lifecycle: 'cascaded', version: 2, updatedAt: T2 });
        expect(effectiveState(state, T2)).toBe('cascaded');
      },
    );

    it('spec 3.2 row 1: a child suspended on its own is cascaded too (previous_state suspended)', () => {
      given(missionDecider, [childCreated, transition('suspend', 'active', 'suspended', 2)])
        .when(cascade())
        .then([cascaded('suspended', 3)]);
    });

    it('DESIGN 2.3: the version counts every committed transition before the cascade', () => {
      const history = [childCreated, transition('suspend', 'active', 'suspended', 2), transition('resume', 'suspended', 'active', 3)];
      given(missionDecider, history).when(cascade({ now: T3 })).then([cascaded('active', 4, 'revoked', {}, T3)]);
    });

    it('spec 3.2 row 1 (transitive): a cascaded child with open children carries open_children, so its children cascade in turn', () => {
      given(missionDecider, [childCreated, attached(1), attached(2), attached(3), detached(2)])
        .when(cascade())
        .then([cascaded('active', 2, 'revoked', { open_children: 2 })]);
    });

    it('spec 3.2: open_children is absent when every child of the cascaded mission is already terminal', () => {
      given(missionDecider, [childCreated, attached(1), detached(1, 'revoked')]).when(cascade()).then([cascaded('active', 2)]);
    });

    it('spec 3.1: cascaded is terminal — the child derives nothing and takes no further lifecycle operation', () => {
      const history: MissionEvent[] = [childCreated, cascaded('active', 2)];
      const state = given(missionDecider, history).when(cascade({ now: T3 })).then([]);
      expect(() => assertDerivable(state, T3)).toThrow(MissionNotActiveError);
      try {
        assertDerivable(state, T3);
      } catch (error) {
        expect(error).toMatchObject({ state: 'cascaded', missionError: 'mission_cascaded' });
      }
      for (const operation of ['resume', 'suspend', 'revoke', 'complete'] as const) {
        given(missionDecider, history).when(op(operation, T3)).thenThrows(MissionNotActiveError, (error) => expect(error).toMatchObject({ state: 'cascaded' }));
      }
      given(missionDecider, history).when({ type: 'ExpireMission', actor: EXPIRY_PROCESS, now: CHILD_EXPIRES_AT }).thenNothingHappens();
    });

    it('spec 3.2: a cascade does not record an idempotency nonce (it is no client request)', () => {
      const state = stateAfter(given(missionDecider, [childCreated]).when(cascade()).then([cascaded('active', 2)]));
      expect(state.nonces.size).toBe(0);
    });

    it.each([
      ['cascaded', cascaded('active', 2)],
      ['revoked', transition('revoke', 'active', 'revoked', 2, { parent_id: OTHER_MISSION_ID })],
      ['completed', transition('complete', 'active', 'completed', 2, { parent_id: OTHER_MISSION_ID })],
      ['expired', expired('active', 2, CHILD_EXPIRES_AT, { parent_id: OTHER_MISSION_ID })],
    ] as const)('spec 3.2 (idempotent): a child already %s decides nothing', (_, terminal) => {
      given(missionDecider, [childCreated, terminal]).when(cascade({ now: T3 })).thenNothingHappens();
      given(missionDecider, [childCreated, terminal]).when(cascade({ now: T3, parentState: 'expired' })).thenNothingHappens();
    });

    it('spec 3.1, 3.2 (decision 0020): a cascade recorded after the child\'s own expires_at records cascaded when the parent ended first, with effective_at', () => {
      const late = at('2026-11-22T16:00:00.000Z');
      given(missionDecider, [childCreated]).when(cascade({ now: late })).then([cascaded('active', 2, 'revoked', {}, late)]);
      given(missionDecider, [childCreated, transition('suspend', 'active', 'suspended', 2)])
        .when(cascade({ now: late, parentTerminalAt: at('2026-11-22T14:59:59.999Z') }))
        .then([cascaded('suspended', 3, 'revoked', { effective_at: '2026-11-22T14:59:59.999Z' }, late)]);
    });

    it('spec 3.2 last row, 3.1 (decision 0020): when the child\'s own expires_at came no later than the parent\'s end, the cascade records expired (a tie goes to the expiry)', () => {
      const late = at('2026-11-22T16:00:00.000Z');
      given(missionDecider, [childCreated]).when(cascade({ now: late, parentTerminalAt: CHILD_EXPIRES_AT })).then([expired('active', 2, CHILD_EXPIRES_AT, { parent_id: OTHER_MISSION_ID }, late, CASCADE_PROCESS)]);
      given(missionDecider, [childCreated, attached(1)])
        .when(cascade({ now: late, parentTerminalAt: late, parentState: 'expired' }))
        .then([expired('active', 2, CHILD_EXPIRES_AT, { parent_id: OTHER_MISSION_ID, open_children: 1 }, late, CASCADE_PROCESS)]);
    });

    it('spec 3.1 (decision 0020): evolve keeps when a terminal state took effect — an expiry at expires_at, a cascade at effective_at, any other when recorded', () => {
      const late = at('2026-11-22T16:00:00.000Z');
      expect(terminalSince(stateAfter(fold(missionDecider, [childCreated, expired('active', 2, CHILD_EXPIRES_AT, { parent_id: OTHER_MISSION_ID }, late)])), late)).toEqual(CHILD_EXPIRES_AT);
      expect(terminalSince(stateAfter(fold(missionDecider, [childCreated, cascaded('active', 2, 'revoked', {}, late)])), late)).toEqual(T2);
      expect(terminalSince(stateAfter(fold(missionDecider, [childCreated, transition('revoke', 'active', 'revoked', 2, { parent_id: OTHER_MISSION_ID }, T3)])), late)).toEqual(T3);
      // A MissionCascaded recorded before decision 0020 has no effective_at: when it was recorded stands in.
      const old: MissionCascaded['data'] = { ...cascaded('active', 2, 'revoked', {}, T3).data };
      delete (old as { effective_at?: string }).effective_at;
      expect(terminalSince(stateAfter(fold(missionDecider, [childCreated, { type: 'MissionCascaded', data: old }])), late)).toEqual(T3);
      expect(terminalSince(stateAfter(fold(missionDecider, [childCreated])), T3)).toBeUndefined();
    });

    it('decision 0020: a parent time ahead of this clock never records a child expired that has not expired yet', () => {
      const early = at('2026-11-22T14:00:00.000Z');
      given(missionDecider, [childCreated])
        .when(cascade({ now: early, parentTerminalAt: at('2026-11-22T15:30:00.000Z') }))
        .then([cascaded('active', 2, 'revoked', { effective_at: '2026-11-22T15:30:00.000Z' }, early)]);
    });

    it('spec 2.3 rule 1: a cascade naming another mission than the child\'s parent is refused with InvalidCommandError', () => {
      given(missionDecider, [childCreated]).when(cascade({ parentMissionId: missionIdFromBytes(new Uint8Array(16).fill(9)) })).thenThrows(InvalidCommandError);
      given(missionDecider, [childCreated]).when(cascade({ parentMissionId: MISSION_ID })).thenThrows(InvalidCommandError);
    });

    it('spec 2.3: a root mission (no parent) is never cascaded', () => {
      given(missionDecider, [rootCreated]).when(cascade()).thenThrows(InvalidCommandError);
    });

    it.each<[string, Partial<CascadeMission>]>([
      ['a malformed parentMissionId', { parentMissionId: 'msn_short' }],
      ['a non-terminal parentState suspended (a reversible trigger, spec 3.2 row 2)', { parentState: 'suspended' as TerminalMissionState }],
      ['a non-terminal parentState active', { parentState: 'active' as TerminalMissionState }],
      ['an unknown parentState', { parentState: 'gone' as TerminalMissionState }],
      ['an actor without role', { actor: { id: 'mission-cascade', role: '' } }],
      ['an invalid now', { now: new Date(Number.NaN) }],
      ['an invalid parentTerminalAt', { parentTerminalAt: new Date(Number.NaN) }],
      ['a malformed missionId', { missionId: 'msn_short' }],
      ['another missionId than the stream\'s', { missionId: grandchildId(9) }],
    ])('spec 3.2, DESIGN 2.4 cascade process manager: refuses %s with InvalidCommandError (the process manager built it)', (_, overrides) => {
      given(missionDecider, [childCreated]).when(cascade(overrides)).thenThrows(InvalidCommandError);
    });

    it('spec 4.1 rule 1, 3.2 (decision 0021): an attached child whose stream holds no mission yet is cascaded before creation, once', () => {
      const marker: MissionCascadedBeforeCreation = {
        type: 'MissionCascadedBeforeCreation',
        data: {
          mission_id: MISSION_ID, parent_id: OTHER_MISSION_ID, actor: CASCADE_PROCESS, reason: 'parent mission revoked before the child mission was created',
          state: 'cascaded', trigger: { mission_id: OTHER_MISSION_ID, state: 'revoked' }, effective_at: T2.toISOString(), occurred_at: T3.toISOString(),
        },
      };
      const state = given(missionDecider).when(cascade({ now: T3 })).then([marker]);
      expect(missionExists(state)).toBe(false);
      expect(state).toEqual({ lifecycle: 'none', cascadedBeforeCreation: { parentId: OTHER_MISSION_ID, parentState: 'revoked', effectiveAt: T2 } });
      given(missionDecider, [marker]).when(cascade({ now: T3 })).thenNothingHappens();
      given(missionDecider, [marker]).when(cascade({ now: T3, parentState: 'cascaded' })).thenNothingHappens();
    });

    it('spec 4.1 rule 1 (decision 0021): after the cascade came first, create is refused (ParentNotActiveError) and no lifecycle operation applies', () => {
      const marker = missionDecider.decide(cascade(), initialMissionState);
      given(missionDecider, marker)
        .when(createCommand({ authoritySet: SET, authorityHash: HASH, expiresAt: CHILD_EXPIRES_AT, parent: parentLink() }))
        .thenThrows(ParentNotActiveError, (error) => expect(error).toMatchObject({ state: 'revoked', missionDenialReason: 'parent_not_active' }));
      for (const operation of ['resume', 'suspend', 'revoke', 'complete'] as const) {
        given(missionDecider, marker).when(op(operation, T3)).thenThrows(MissionNotActiveError, (error) => expect(error).toMatchObject({ state: 'cascaded' }));
      }
      given(missionDecider, marker).when({ type: 'ExpireMission', actor: EXPIRY_PROCESS, now: CHILD_EXPIRES_AT }).thenThrows(MissionNotFoundError);
      // A MissionCreated that did commit first is never undone by a later marker event (evolve ignores it).
      expect(missionExists(missionDecider.evolve(missionDecider.evolve(initialMissionState, childCreated), marker[0]!))).toBe(true);
    });
  });

  describe('parent_id and open_children on lifecycle transition events', () => {
    it.each([
      ['revoke', 'revoked'],
      ['complete', 'completed'],
    ] as const)('spec 2.4 rule 2: a child\'s terminal %s carries parent_id (its parent frees the slot)', (operation, next) => {
      given(missionDecider, [childCreated]).when(op(operation)).then([transition(operation, 'active', next, 2, { parent_id: OTHER_MISSION_ID })]);
    });

    it('spec 2.4 rule 2: a child\'s recorded expiry carries parent_id', () => {
      given(missionDecider, [childCreated])
        .when({ type: 'ExpireMission', actor: EXPIRY_PROCESS, now: CHILD_EXPIRES_AT })
        .then([expired('active', 2, CHILD_EXPIRES_AT, { parent_id: OTHER_MISSION_ID })]);
    });

    it.each([
      ['revoke', 'revoked'],
      ['complete', 'completed'],
    ] as const)('spec 3.2 cascade trigger: a root mission\'s %s with open children carries open_children and no parent_id', (operation, next) => {
      given(missionDecider, [rootCreated, attached(1), attached(2)])
        .when(op(operation, T2))
        .then([transition(operation, 'active', next, 2, { open_children: 2 }, T2)]);
    });

    it('spec 3.2 cascade trigger: a root mission\'s recorded expiry with open children carries open_children', () => {
      given(missionDecider, [rootCreated, attached(1)])
        .when({ type: 'ExpireMission', actor: EXPIRY_PROCESS, now: EXPIRES_AT })
        .then([expired('active', 2, EXPIRES_AT, { open_children: 1 })]);
    });

    it('spec 3.2: a child with open children of its own carries both parent_id and open_children when it ends', () => {
      given(missionDecider, [childCreated, attached(1), attached(2), attached(3), detached(1)])
        .when(op('revoke', T2))
        .then([transition('revoke', 'active', 'revoked', 2, { parent_id: OTHER_MISSION_ID, open_children: 2 }, T2)]);
      given(missionDecider, [childCreated, attached(1)])
        .when({ type: 'ExpireMission', actor: EXPIRY_PROCESS, now: CHILD_EXPIRES_AT })
        .then([expired('active', 2, CHILD_EXPIRES_AT, { parent_id: OTHER_MISSION_ID, open_children: 1 })]);
    });

    it('spec 3.2 terminal trigger from a suspended mission: revoke/complete of a suspended parent carries open_children', () => {
      given(missionDecider, [rootCreated, attached(1), transition('suspend', 'active', 'suspended', 2)])
        .when(op('revoke', T2))
        .then([transition('revoke', 'suspended', 'revoked', 3, { open_children: 1 }, T2)]);
    });

    it('spec 3.2: a root mission without children, or whose children are all terminal, carries neither member', () => {
      given(missionDecider, [rootCreated]).when(op('revoke')).then([transition('revoke', 'active', 'revoked', 2)]);
      given(missionDecider, [rootCreated, attached(1), detached(1, 'cascaded')]).when(op('complete', T2)).then([transition('complete', 'active', 'completed', 2, {}, T2)]);
      given(missionDecider, [rootCreated, attached(1), detached(1)])
        .when({ type: 'ExpireMission', actor: EXPIRY_PROCESS, now: EXPIRES_AT })
        .then([expired('active', 2, EXPIRES_AT)]);
    });

    it('spec 3.2 row 2/3: suspend and resume (reversible) carry neither parent_id nor open_children', () => {
      const suspendedState = given(missionDecider, [childCreated, attached(1)]).when(op('suspend')).then([transition('suspend', 'active', 'suspended', 2)]);
      expect(activeChildCount(suspendedState, 0)).toBe(1);
      given(missionDecider, [childCreated, attached(1), transition('suspend', 'active', 'suspended', 2)])
        .when(op('resume', T2))
        .then([transition('resume', 'suspended', 'active', 3, {}, T2)]);
      given(missionDecider, [rootCreated, attached(1)]).when(op('suspend')).then([transition('suspend', 'active', 'suspended', 2)]);
    });

    it('spec 3.2: an administrator\'s revoke of a child carries parent_id like the client\'s', () => {
      const command: ChangeMissionLifecycle = { type: 'ChangeMissionLifecycle', operation: 'revoke', actor: ADMIN, reason: 'incident', now: T1 };
      const event = missionDecider.decide(command, stateAfter(given(missionDecider, [childCreated]).when(op('suspend')).then([transition('suspend', 'active', 'suspended', 2)])));
      expect(event).toEqual([
        {
          type: 'MissionRevoked',
          data: { mission_id: MISSION_ID, actor: ADMIN, reason: 'incident', previous_state: 'suspended', state: 'revoked', version: 3, occurred_at: T1.toISOString(), parent_id: OTHER_MISSION_ID },
        },
      ]);
    });
  });
});

import { fold, given } from '@mission/decider';
import { InvalidRequestError, InvalidTerminationReasonError, MissionNotFoundError, MissionTerminatedError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import {
  ADMIN,
  AFTER_EXPIRY,
  AGENT,
  APPROVER,
  at,
  EXPIRES_AT,
  MISSION_S256,
  OTHER_AGENT,
  OTHER_REQUEST_ID,
  OTHER_S256,
  OWNING_AGENT,
  PERSON,
  REQUEST_ID,
  T0,
  T1,
  T2,
  TENANT,
  without,
} from '../testing/fixtures.js';
import type { ManagementCaller } from './management-caller.js';
import type { ApproveMission, TerminateMission } from './mission.commands.js';
import { missionDecider } from './mission.decider.js';
import type { LateTerminationRequested, MissionApproved, MissionEvent, MissionStatusRead, MissionTerminated } from './mission.events.js';
import { assertMissionActive, effectiveState, PS_SCHEDULER, type MissionState } from './mission.state.js';
import { blobStreamName, missionStreamName, tokensStreamName } from './mission-streams.js';
import { trackedTokenDecider } from '../tokens/tracked-token.decider.js';
import { TOKEN_POLICIES, type TrackedTokenEvent } from '../tokens/tracked-token.events.js';

const approve = (overrides: Partial<ApproveMission> = {}): ApproveMission => ({
  type: 'ApproveMission',
  approver: APPROVER,
  missionS256: MISSION_S256,
  agent: AGENT,
  approvedBy: 'alice',
  tenant: TENANT,
  expiresAt: EXPIRES_AT,
  now: T0,
  ...overrides,
});

const terminate = (overrides: Partial<TerminateMission> = {}): TerminateMission => ({
  type: 'TerminateMission',
  caller: OWNING_AGENT,
  reason: 'revoked',
  requestId: REQUEST_ID,
  now: T1,
  ...overrides,
});

const base = { approver: APPROVER, mission_s256: MISSION_S256 };
const permit = (policy: string) => ({ decision: 'permit', policy }) as MissionEvent['data']['authorization'];

const missionApproved: MissionApproved = {
  type: 'MissionApproved',
  data: {
    ...base,
    sequence: 1,
    occurred_at: T0.toISOString(),
    actor: { id: 'alice', role: 'person' },
    authorization: permit('ps:person-owns-agent'),
    agent: AGENT,
    approved_by: 'alice',
    tenant: TENANT,
    approved_at: T0.toISOString(),
    expires_at: EXPIRES_AT.toISOString(),
  },
};

const revokedByAgent: MissionTerminated = {
  type: 'MissionTerminated',
  data: {
    ...base,
    sequence: 2,
    occurred_at: T1.toISOString(),
    actor: { id: AGENT, role: 'agent' },
    authorization: permit('ps:owning-agent'),
    reason: 'revoked',
    terminated_at: T1.toISOString(),
    request_id: REQUEST_ID,
  },
};

const expiredBy = (sequence: number, now: Date): MissionTerminated => ({
  type: 'MissionTerminated',
  data: { ...base, sequence, occurred_at: now.toISOString(), actor: PS_SCHEDULER, authorization: permit('ps:expires-at'), reason: 'expired', terminated_at: EXPIRES_AT.toISOString() },
});

const statusRead = (sequence: number, now: Date, caller: ManagementCaller, policy: string, extra: Partial<MissionStatusRead['data']> = {}): MissionStatusRead => ({
  type: 'MissionStatusRead',
  data: { ...base, sequence, occurred_at: now.toISOString(), actor: { id: caller.id, role: caller.role }, authorization: permit(policy), mission_status: 'active', ...extra },
});

describe('Mission aggregate (psmission-<s256>, spec 2.8, 3, 6)', () => {
  describe('streams (DESIGN 1)', () => {
    it('DESIGN 1: psmission-, psblob-, pstokens- followed by the digest; anything else is refused', () => {
      expect(missionStreamName(MISSION_S256)).toBe(`psmission-${MISSION_S256}`);
      expect(blobStreamName(MISSION_S256)).toBe(`psblob-${MISSION_S256}`);
      expect(tokensStreamName(MISSION_S256)).toBe(`pstokens-${MISSION_S256}`);
      expect(() => missionStreamName('../x')).toThrow(InvalidCommandError);
    });
  });

  describe('ApproveMission', () => {
    it('spec 1.3: records MissionApproved at sequence 1; the mission is active', () => {
      const state = given(missionDecider).when(approve()).then([missionApproved]);
      expect(state).toMatchObject({ status: 'active', sequence: 1, agent: AGENT, tenant: TENANT });
      expect(effectiveState(state, T1)).toBe('active');
    });

    it('spec 2.1 rule 5: a mission without expires_at records none and never expires', () => {
      const state = given(missionDecider)
        .when(approve({ expiresAt: undefined as never }))
        .then([{ type: 'MissionApproved', data: without(missionApproved.data, 'expires_at') }]);
      expect(effectiveState(state, at('2100-01-01T00:00:00Z'))).toBe('active');
    });

    it('a retry of the same approval decides nothing; a different one is refused', () => {
      given(missionDecider, [missionApproved]).when(approve()).thenNothingHappens();
      given(missionDecider, [missionApproved]).when(approve({ agent: OTHER_AGENT })).thenThrows(InvalidCommandError);
      given(missionDecider, [missionApproved]).when(approve({ now: T1 })).thenThrows(InvalidCommandError);
    });

    it('spec 3 rule 1: approving again never returns a terminated mission to active', () => {
      given(missionDecider, [missionApproved, revokedByAgent]).when(approve()).thenNothingHappens();
      expect(fold(missionDecider, [missionApproved, revokedByAgent, missionApproved])).toMatchObject({ status: 'terminated', termination: { reason: 'revoked' } });
      given(missionDecider, [missionApproved, revokedByAgent]).when(approve({ approvedBy: 'bob' })).thenThrows(InvalidCommandError);
    });

    it.each([
      ['a malformed digest', { missionS256: 'abc' }],
      ['an empty agent', { agent: '' }],
      ['an empty tenant', { tenant: '' }],
      ['expires_at not after now', { expiresAt: T0 }],
      ['an invalid now', { now: new Date(Number.NaN) }],
    ])('refuses %s', (_, change) => {
      given(missionDecider).when(approve(change)).thenThrows(InvalidCommandError);
    });
  });

  describe('authorization (spec 5.2–5.4, 5.9, DESIGN 3.2)', () => {
    const callers: [string, ManagementCaller][] = [
      ['another agent (e.g. a sub-agent: parent_agent confers nothing)', { role: 'agent', id: OTHER_AGENT }],
      ['a person who does not own the agent', { ...PERSON, ownedAgents: [OTHER_AGENT] }],
      ['a person owning the agent in another tenant', { ...PERSON, tenant: 'tenant-2' }],
      ['an administrator of another tenant', { ...ADMIN, tenant: 'tenant-2' }],
    ];

    it.each(callers)('spec 5.9: %s gets mission_not_found, identical to an absent mission', (_, caller) => {
      let unauthorized: unknown;
      let absent: unknown;
      given(missionDecider, [missionApproved])
        .when({ type: 'ReadMissionStatus', caller, now: T1 })
        .thenThrows(MissionNotFoundError, (error) => (unauthorized = error));
      given(missionDecider)
        .when({ type: 'ReadMissionStatus', caller, now: T1 })
        .thenThrows(MissionNotFoundError, (error) => (absent = error));
      const shape = (error: unknown) => {
        const { code, status, message, members } = error as MissionNotFoundError;
        return { code, status, message, members };
      };
      expect(shape(unauthorized)).toEqual(shape(absent));
      expect(shape(absent)).toEqual({ code: 'mission_not_found', status: 404, message: 'mission not found', members: {} });
      expect(unauthorized).toMatchObject({ auditDetail: 'not_authorized' });
      expect(absent).toMatchObject({ auditDetail: 'absent' });
    });

    it('spec 5.9: an unauthorized terminate learns nothing either, not even the mission\'s state', () => {
      for (const [, caller] of callers) {
        given(missionDecider, [missionApproved, revokedByAgent]).when(terminate({ caller })).thenThrows(MissionNotFoundError);
        given(missionDecider, [missionApproved]).when(terminate({ caller, now: AFTER_EXPIRY })).thenThrows(MissionNotFoundError);
      }
    });
  });

  describe('status read (spec 4.1, spec 6)', () => {
    it.each([
      ['the owning agent', OWNING_AGENT, 'ps:owning-agent'],
      ['a person owning the agent', PERSON, 'ps:person-owns-agent'],
      ['an administrator of the tenant', ADMIN, 'ps:tenant-admin'],
    ] as const)('spec 6: every authorized status by %s appends MissionStatusRead with actor, role and policy', (_, caller, policy) => {
      const state = given(missionDecider, [missionApproved]).when({ type: 'ReadMissionStatus', caller, now: T1 }).then([statusRead(2, T1, caller, policy)]);
      expect(state).toMatchObject({ status: 'active', sequence: 2 });
    });

    it('spec 3 rule 1: a status read of a terminated mission reports terminated with the first reason', () => {
      given(missionDecider, [missionApproved, revokedByAgent])
        .when({ type: 'ReadMissionStatus', caller: PERSON, now: T2 })
        .then([statusRead(3, T2, PERSON, 'ps:person-owns-agent', { mission_status: 'terminated', termination_reason: 'revoked' })]);
    });

    it('spec 3: expiry first — a status read past expires_at first records MissionTerminated expired by the PS scheduler', () => {
      const state = given(missionDecider, [missionApproved])
        .when({ type: 'ReadMissionStatus', caller: OWNING_AGENT, now: AFTER_EXPIRY })
        .then([expiredBy(2, AFTER_EXPIRY), statusRead(3, AFTER_EXPIRY, OWNING_AGENT, 'ps:owning-agent', { mission_status: 'terminated', termination_reason: 'expired' })]);
      expect(state).toMatchObject({ status: 'terminated', termination: { reason: 'expired', terminatedAt: EXPIRES_AT, actor: PS_SCHEDULER } });
    });

    it('spec 3: expires_at itself is already past (now ≥ expires_at)', () => {
      given(missionDecider, [missionApproved])
        .when({ type: 'ReadMissionStatus', caller: OWNING_AGENT, now: EXPIRES_AT })
        .then([expiredBy(2, EXPIRES_AT), statusRead(3, EXPIRES_AT, OWNING_AGENT, 'ps:owning-agent', { mission_status: 'terminated', termination_reason: 'expired' })]);
    });
  });

  describe('terminate per role (spec 5.4, spec 4.2 rule 4)', () => {
    it.each([
      ['agent', OWNING_AGENT, 'revoked', {}],
      ['person', PERSON, 'completed', {}],
      ['person', PERSON, 'revoked', { purpose: 'no longer needed' }],
      ['person', PERSON, 'superseded', { replacementS256: OTHER_S256, replacementResolves: true }],
      ['admin', ADMIN, 'administrative', { purpose: 'incident INC-42' }],
      ['admin', ADMIN, 'revoked', { purpose: 'incident INC-42' }],
      ['admin', ADMIN, 'superseded', { purpose: 'moved to a new mission', replacementS256: OTHER_S256, replacementResolves: true }],
    ] as const)('spec 5.4: the %s may terminate with %s', (role, caller, reason, extra) => {
      const command = terminate({ caller, reason, ...extra });
      const state = given(missionDecider, [missionApproved])
        .when(command)
        .then([
          {
            type: 'MissionTerminated',
            data: {
              ...base,
              sequence: 2,
              occurred_at: T1.toISOString(),
              actor: { id: caller.id, role },
              authorization: permit({ agent: 'ps:owning-agent', person: 'ps:person-owns-agent', admin: 'ps:tenant-admin' }[role]),
              reason,
              terminated_at: T1.toISOString(),
              request_id: REQUEST_ID,
              ...('purpose' in extra ? { purpose: extra.purpose } : {}),
              ...('replacementS256' in extra ? { replacement_s256: extra.replacementS256 } : {}),
            },
          },
        ]);
      expect(state).toMatchObject({ status: 'terminated', termination: { reason, terminatedAt: T1, actor: { id: caller.id, role }, requestId: REQUEST_ID } });
      expect(() => assertMissionActive(state, T1)).toThrow(MissionTerminatedError);
    });

    it.each([
      ['agent', OWNING_AGENT, 'completed', {}],
      ['agent', OWNING_AGENT, 'superseded', { replacementS256: OTHER_S256, replacementResolves: true }],
      ['agent', OWNING_AGENT, 'administrative', {}],
      ['agent', OWNING_AGENT, 'expired', {}],
      ['person', PERSON, 'administrative', {}],
      ['person', PERSON, 'expired', {}],
      ['admin', ADMIN, 'completed', { purpose: 'p' }],
      ['admin', ADMIN, 'expired', { purpose: 'p' }],
    ] as const)('spec 5.4: the %s may not terminate with %s (invalid_termination_reason)', (_, caller, reason, extra) => {
      given(missionDecider, [missionApproved])
        .when(terminate({ caller, reason, ...extra }))
        .thenThrows(InvalidTerminationReasonError, (error) => expect(error).toMatchObject({ code: 'invalid_termination_reason', status: 400 }));
    });

    it.each(['paused', 'suspended', 'Revoked', 'revoked ', ''])('spec 4.2 rule 4: an unknown reason %j is invalid_termination_reason for every role', (reason) => {
      for (const caller of [OWNING_AGENT, PERSON, ADMIN]) {
        given(missionDecider, [missionApproved]).when(terminate({ caller, reason, purpose: 'p' })).thenThrows(InvalidTerminationReasonError);
      }
    });

    it('spec 4.2: a missing reason is invalid_request (a required member)', () => {
      given(missionDecider, [missionApproved]).when(terminate({ reason: undefined as never })).thenThrows(InvalidRequestError);
    });

    it('spec 5.4: an administrator must give a purpose (invalid_request); a blank purpose does not count', () => {
      given(missionDecider, [missionApproved]).when(terminate({ caller: ADMIN, reason: 'administrative' })).thenThrows(InvalidRequestError);
      given(missionDecider, [missionApproved]).when(terminate({ caller: ADMIN, reason: 'revoked', purpose: '   ' })).thenThrows(InvalidRequestError);
    });

    it.each([
      ['a control character', 'a\u0007b'],
      ['a line break', 'a\nb'],
      ['over 1000 characters', 'p'.repeat(1001)],
      ['a non-string', 42],
    ])('spec 4.2: a purpose with %s is invalid_request', (_, purpose) => {
      given(missionDecider, [missionApproved]).when(terminate({ caller: PERSON, purpose: purpose as string })).thenThrows(InvalidRequestError);
    });
  });

  describe('superseded (spec 4.2 rule 1)', () => {
    const supersede = (extra: Partial<TerminateMission>) => terminate({ caller: PERSON, reason: 'superseded', ...extra });

    it('spec 4.2 rule 1: superseded without replacement_s256 is invalid_request', () => {
      given(missionDecider, [missionApproved]).when(supersede({})).thenThrows(InvalidRequestError);
    });

    it.each([
      ['malformed', { replacementS256: 'not-a-digest', replacementResolves: true }],
      ['unresolvable, unapproved or not the caller\'s (the app\'s finding)', { replacementS256: OTHER_S256, replacementResolves: false }],
      ['without the app\'s finding', { replacementS256: OTHER_S256 }],
      ['the mission itself', { replacementS256: MISSION_S256, replacementResolves: true }],
    ])('spec 4.2 rule 1: a replacement that is %s fails uniformly with invalid_request', (_, extra) => {
      given(missionDecider, [missionApproved])
        .when(supersede(extra))
        .thenThrows(InvalidRequestError, (error) => expect(error.message).toBe('replacement_s256 does not identify a mission that can replace this one'));
    });

    it('spec 4.2: replacement_s256 is ignored (not recorded) for other reasons', () => {
      given(missionDecider, [missionApproved])
        .when(terminate({ replacementS256: OTHER_S256, replacementResolves: true }))
        .then([revokedByAgent]);
    });
  });

  describe('request_id (spec 4.2, spec 8: at least 128 bits)', () => {
    it.each([
      ['22 base64url characters (132 bits)', 'Jq3vX0b9TzK1mW7cRf2YhA'],
      ['32 hex digits (128 bits)', '0f3b2e9a4c41d8b6e5f1a2c3d4e5f607'],
      ['256 characters', `${'Jq3vX0b9TzK1mW7cRf2YhA'.repeat(11)}${'pL8sN4dQe6GkV1xZu0TbwQ'.slice(0, 14)}`],
      ['visible ASCII punctuation', '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'],
    ])('spec 4.2: accepts %s', (_, requestId) => {
      given(missionDecider, [missionApproved])
        .when(terminate({ requestId }))
        .then([{ type: 'MissionTerminated', data: { ...revokedByAgent.data, request_id: requestId } }]);
    });

    it.each([
      ['21 characters (under 128 bits)', 'Jq3vX0b9TzK1mW7cRf2Yh'],
      ['257 characters', `${'Jq3vX0b9TzK1mW7cRf2YhA'.repeat(11)}${'pL8sN4dQe6GkV1xZu0TbwQ'.slice(0, 15)}`],
      ['a space', 'Jq3vX0b9TzK1mW7cRf2YhA b'],
      ['non-ASCII', 'Jq3vX0b9TzK1mW7cRf2YhAé'],
      ['one character repeated', 'a'.repeat(22)],
      ['22 hex digits (88 bits)', '7d0f3b2e9a4c41d8b6e5f1'],
      ['a UUID (122 bits)', '3f2b8c1e-9d4a-4f6b-8e2c-7a1d5b9c0e34'],
      ['a missing request_id', undefined],
      ['a number', 1234567890123456],
    ])('spec 4.2: refuses %s with invalid_request, before any lookup', (_, requestId) => {
      given(missionDecider, [missionApproved]).when(terminate({ requestId: requestId as string })).thenThrows(InvalidRequestError);
      given(missionDecider).when(terminate({ requestId: requestId as string })).thenThrows(InvalidRequestError);
    });
  });

  describe('first committed transition wins, late termination (spec 3)', () => {
    it('spec 3 rule 2: a later authorized terminate records LateTerminationRequested; the first reason and timestamp stand', () => {
      const late: LateTerminationRequested = {
        type: 'LateTerminationRequested',
        data: {
          ...base,
          sequence: 3,
          occurred_at: T2.toISOString(),
          actor: { id: 'ops-1', role: 'admin' },
          authorization: permit('ps:tenant-admin'),
          requested_reason: 'administrative',
          request_id: OTHER_REQUEST_ID,
          purpose: 'incident INC-42',
          termination_reason: 'revoked',
          terminated_at: T1.toISOString(),
        },
      };
      const state = given(missionDecider, [missionApproved, revokedByAgent])
        .when(terminate({ caller: ADMIN, reason: 'administrative', purpose: 'incident INC-42', requestId: OTHER_REQUEST_ID, now: T2 }))
        .then([late]);
      expect(state).toMatchObject({ status: 'terminated', sequence: 3, termination: { reason: 'revoked', terminatedAt: T1, actor: { id: AGENT, role: 'agent' } } });
    });

    it('spec 3 rule 2: the loser of a race observes an idempotent outcome (both decided over the same active state, the second re-decides)', () => {
      // Both read sequence 1; the first append wins, the second is re-decided on fresh state (expected revision).
      const first = missionDecider.decide(terminate({ caller: PERSON, reason: 'completed' }), fold(missionDecider, [missionApproved]));
      const second = missionDecider.decide(terminate({ requestId: OTHER_REQUEST_ID, now: T2 }), fold(missionDecider, [missionApproved, ...first]));
      expect(second.map((event) => event.type)).toEqual(['LateTerminationRequested']);
      expect(second[0]!.data).toMatchObject({ termination_reason: 'completed', terminated_at: T1.toISOString(), requested_reason: 'revoked' });
    });

    it('spec 3 rule 2: a stored second MissionTerminated could never overwrite the first', () => {
      const second: MissionTerminated = { type: 'MissionTerminated', data: { ...revokedByAgent.data, sequence: 3, reason: 'completed', terminated_at: T2.toISOString() } };
      expect(fold(missionDecider, [missionApproved, revokedByAgent, second])).toMatchObject({ termination: { reason: 'revoked', terminatedAt: T1 }, sequence: 3 });
    });

    it('spec 3: a terminate past expires_at first records the expiry, then is a late request (expiry obeys the same rule)', () => {
      const state = given(missionDecider, [missionApproved])
        .when(terminate({ now: AFTER_EXPIRY }))
        .then([
          expiredBy(2, AFTER_EXPIRY),
          {
            type: 'LateTerminationRequested',
            data: {
              ...base,
              sequence: 3,
              occurred_at: AFTER_EXPIRY.toISOString(),
              actor: { id: AGENT, role: 'agent' },
              authorization: permit('ps:owning-agent'),
              requested_reason: 'revoked',
              request_id: REQUEST_ID,
              termination_reason: 'expired',
              terminated_at: EXPIRES_AT.toISOString(),
            },
          },
        ]);
      expect(state).toMatchObject({ status: 'terminated', termination: { reason: 'expired', actor: PS_SCHEDULER } });
    });

    it('spec 3: a terminate just before expires_at wins over the expiry', () => {
      const justBefore = at('2026-11-22T16:59:59.999Z');
      const state = given(missionDecider, [missionApproved])
        .when(terminate({ now: justBefore }))
        .then([{ type: 'MissionTerminated', data: { ...revokedByAgent.data, occurred_at: justBefore.toISOString(), terminated_at: justBefore.toISOString() } }]);
      given(missionDecider, [missionApproved, ...[{ type: 'MissionTerminated', data: { ...revokedByAgent.data, occurred_at: justBefore.toISOString(), terminated_at: justBefore.toISOString() } } as MissionEvent]])
        .when({ type: 'ApplyMissionExpiry', now: AFTER_EXPIRY })
        .thenNothingHappens();
      expect(state).toMatchObject({ termination: { reason: 'revoked' } });
    });

    it('spec 4.2 rule 2: repeating the terminating request (same caller, same request_id) decides nothing', () => {
      given(missionDecider, [missionApproved, revokedByAgent]).when(terminate({ now: T2 })).thenNothingHappens();
    });

    it('spec 4.2 rule 2: repeating a late request decides nothing; the same request_id from another caller is its own request', () => {
      const history = [missionApproved, expiredBy(2, AFTER_EXPIRY)];
      const late = missionDecider.decide(terminate({ now: AFTER_EXPIRY }), fold(missionDecider, history));
      given(missionDecider, [...history, ...late]).when(terminate({ now: AFTER_EXPIRY })).thenNothingHappens();
      const other = missionDecider.decide(terminate({ caller: PERSON, now: AFTER_EXPIRY }), fold(missionDecider, [...history, ...late]));
      expect(other.map((event) => [event.type, event.data.sequence])).toEqual([['LateTerminationRequested', 4]]);
    });

    it('spec 4.2: an invalid reason is refused even after termination (checks precede the state)', () => {
      given(missionDecider, [missionApproved, revokedByAgent]).when(terminate({ reason: 'completed', requestId: OTHER_REQUEST_ID })).thenThrows(InvalidTerminationReasonError);
    });
  });

  describe('applyExpiry (spec 3, expiry process manager)', () => {
    it('spec 3: records MissionTerminated expired attributed to the PS scheduler once expires_at is reached', () => {
      given(missionDecider, [missionApproved]).when({ type: 'ApplyMissionExpiry', now: AFTER_EXPIRY }).then([expiredBy(2, AFTER_EXPIRY)]);
    });

    it('spec 3: decides nothing before expires_at, after termination, or for a mission without expires_at', () => {
      given(missionDecider, [missionApproved]).when({ type: 'ApplyMissionExpiry', now: T1 }).thenNothingHappens();
      given(missionDecider, [missionApproved, expiredBy(2, AFTER_EXPIRY)]).when({ type: 'ApplyMissionExpiry', now: T2 }).thenNothingHappens();
      given(missionDecider, [missionApproved, revokedByAgent]).when({ type: 'ApplyMissionExpiry', now: AFTER_EXPIRY }).thenNothingHappens();
      given(missionDecider, [{ type: 'MissionApproved', data: without(missionApproved.data, 'expires_at') }]).when({ type: 'ApplyMissionExpiry', now: at('2100-01-01T00:00:00Z') }).thenNothingHappens();
    });

    it('refuses on a missing mission', () => {
      given(missionDecider).when({ type: 'ApplyMissionExpiry', now: T1 }).thenThrows(MissionNotFoundError);
    });
  });

  describe('tree read (spec 4.3, spec 6)', () => {
    it('spec 6: every authorized delegation_tree page appends DelegationTreeRead', () => {
      given(missionDecider, [missionApproved])
        .when({ type: 'ReadDelegationTree', caller: PERSON, nodeCount: 3, complete: true, now: T1 })
        .then([
          {
            type: 'DelegationTreeRead',
            data: { ...base, sequence: 2, occurred_at: T1.toISOString(), actor: { id: 'alice', role: 'person' }, authorization: permit('ps:person-owns-agent'), node_count: 3, complete: true },
          },
        ]);
    });

    it('spec 3: expiry first applies to tree reads too; a tree read stays allowed after termination', () => {
      const events = missionDecider.decide({ type: 'ReadDelegationTree', caller: ADMIN, now: AFTER_EXPIRY }, fold(missionDecider, [missionApproved]));
      expect(events.map((event) => event.type)).toEqual(['MissionTerminated', 'DelegationTreeRead']);
    });

    it('refuses a malformed node count; an unauthorized caller gets mission_not_found', () => {
      given(missionDecider, [missionApproved]).when({ type: 'ReadDelegationTree', caller: PERSON, nodeCount: -1, now: T1 }).thenThrows(InvalidCommandError);
      given(missionDecider, [missionApproved]).when({ type: 'ReadDelegationTree', caller: { role: 'agent', id: OTHER_AGENT }, now: T1 }).thenThrows(MissionNotFoundError);
    });
  });

  describe('mission log (spec 2.8)', () => {
    function run(commands: Parameters<typeof missionDecider.decide>[0][]): { events: MissionEvent[]; state: MissionState } {
      const events: MissionEvent[] = [];
      for (const command of commands) {
        for (const event of missionDecider.decide(command, fold(missionDecider, events))) {
          const text = JSON.stringify(event);
          expect(JSON.parse(text)).toEqual(event);
          events.push(JSON.parse(text) as MissionEvent);
        }
      }
      return { events, state: fold(missionDecider, events) };
    }

    const { events } = run([
      approve(),
      { type: 'ReadMissionStatus', caller: OWNING_AGENT, now: T1 },
      { type: 'ReadDelegationTree', caller: PERSON, nodeCount: 1, complete: true, now: T1 },
      { type: 'ReadMissionStatus', caller: ADMIN, now: AFTER_EXPIRY },
      terminate({ caller: PERSON, reason: 'completed', now: AFTER_EXPIRY }),
      terminate({ caller: PERSON, reason: 'completed', now: AFTER_EXPIRY }),
      terminate({ caller: ADMIN, reason: 'revoked', purpose: 'cleanup', requestId: OTHER_REQUEST_ID, now: AFTER_EXPIRY }),
      { type: 'ReadMissionStatus', caller: PERSON, now: AFTER_EXPIRY },
    ]);

    it('spec 2.8: sequences are 1, 2, 3, … strictly increasing without gaps', () => {
      expect(events.map((event) => event.data.sequence)).toEqual(events.map((_, index) => index + 1));
      expect(events.map((event) => event.type)).toEqual([
        'MissionApproved',
        'MissionStatusRead',
        'DelegationTreeRead',
        'MissionTerminated',
        'MissionStatusRead',
        'LateTerminationRequested',
        'LateTerminationRequested',
        'MissionStatusRead',
      ]);
    });

    it('spec 2.8: every event carries the Mission Reference, time, actor with role and the authorization policy', () => {
      for (const { data } of events) {
        expect(data).toMatchObject({ approver: APPROVER, mission_s256: MISSION_S256, occurred_at: expect.any(String), actor: { id: expect.any(String), role: expect.any(String) } });
        expect(data.authorization).toEqual({ decision: 'permit', policy: expect.stringMatching(/^ps:/) });
      }
    });

    it('spec 2.8: the log holds no blob, keys or tokens', () => {
      const text = JSON.stringify(events);
      for (const forbidden of ['description', 'approved_tools', 'approved_resources', 'jwk', 'token', 'jkt']) expect(text).not.toContain(forbidden);
    });
  });

  describe('token-impact summary (spec 2.8, ADR 0013)', () => {
    const EXP_EARLY = '2026-11-22T10:05:00.000Z';
    const EXP_LATE = '2026-11-22T10:30:00.000Z';
    const tokenLog = (sequence: number) => ({ ...base, sequence, occurred_at: T0.toISOString(), actor: { id: AGENT, role: 'agent' as const }, authorization: { decision: 'permit' as const, policy: TOKEN_POLICIES.owningAgent } });
    const issued = (sequence: number, jti: string, exp: string): TrackedTokenEvent => ({
      type: 'AuthTokenIssued',
      data: { ...tokenLog(sequence), iss: APPROVER, jti, aud: 'https://files.example', exp, issued_at: T0.toISOString(), origin: 'issued', agent: AGENT, relationship: 'root' },
    });
    // Three tokens handed out, one withheld (never left the PS): t-1 expires before T1, t-2 and t-3 after.
    const tokens = fold(trackedTokenDecider, [
      issued(1, 't-1', T1.toISOString()),
      issued(2, 't-2', EXP_EARLY),
      issued(3, 't-3', EXP_LATE),
      issued(4, 't-w', EXP_LATE),
      { type: 'AuthTokenWithheld', data: { ...tokenLog(5), iss: APPROVER, jti: 't-w', reason: 'mission_terminated' } },
    ]);

    it('spec 2.8: MissionTerminated carries token_impact — tracked, to_revoke (unexpired, unconfirmed), residual_until, tokens_sequence', () => {
      given(missionDecider, [missionApproved])
        .when(terminate({ trackedTokens: tokens }))
        .then([{ type: 'MissionTerminated', data: { ...revokedByAgent.data, token_impact: { tracked: 3, to_revoke: 2, residual_until: EXP_LATE, tokens_sequence: 5 } } }]);
    });

    it('spec 2.8: a mission without tokens has an empty token impact (no residual_until)', () => {
      given(missionDecider, [missionApproved])
        .when(terminate({ trackedTokens: trackedTokenDecider.initialState }))
        .then([{ type: 'MissionTerminated', data: { ...revokedByAgent.data, token_impact: { tracked: 0, to_revoke: 0, tokens_sequence: 0 } } }]);
    });

    it('spec 2.8, 3: an expiry recorded first (by any path) carries the token impact at the instant it is recorded', () => {
      // Auth Tokens never outlive the mission (DESIGN 3.1), so at expiry nothing is left to revoke.
      given(missionDecider, [missionApproved])
        .when({ type: 'ApplyMissionExpiry', now: AFTER_EXPIRY, trackedTokens: tokens })
        .then([{ type: 'MissionTerminated', data: { ...expiredBy(2, AFTER_EXPIRY).data, token_impact: { tracked: 3, to_revoke: 0, tokens_sequence: 5 } } }]);
      const events = missionDecider.decide({ type: 'ReadMissionStatus', caller: PERSON, now: AFTER_EXPIRY, trackedTokens: tokens }, fold(missionDecider, [missionApproved]));
      expect(events.map((event) => [event.type, (event.data as { token_impact?: unknown }).token_impact])).toEqual([
        ['MissionTerminated', { tracked: 3, to_revoke: 0, tokens_sequence: 5 }],
        ['MissionStatusRead', undefined],
      ]);
    });

    it('spec 2.8, 3: a late terminate changes no token and carries no token impact; the first one stands', () => {
      const history = [missionApproved, { type: 'MissionTerminated', data: { ...revokedByAgent.data, token_impact: { tracked: 3, to_revoke: 2, residual_until: EXP_LATE, tokens_sequence: 5 } } } as MissionEvent];
      const late = missionDecider.decide(terminate({ caller: PERSON, requestId: OTHER_REQUEST_ID, now: T2, trackedTokens: tokens }), fold(missionDecider, history));
      expect(late.map((event) => event.type)).toEqual(['LateTerminationRequested']);
      expect(late[0]!.data).not.toHaveProperty('token_impact');
    });

    it('spec 2.8: without the tokens in the command the event has no token_impact (the application always passes them)', () => {
      given(missionDecider, [missionApproved]).when(terminate()).then([revokedByAgent]);
    });

    it('refuses token records of another mission as a bug at the caller', () => {
      const foreign = fold(trackedTokenDecider, [{ ...issued(1, 't-1', EXP_LATE), data: { ...issued(1, 't-1', EXP_LATE).data, mission_s256: OTHER_S256 } } as TrackedTokenEvent]);
      given(missionDecider, [missionApproved]).when(terminate({ trackedTokens: foreign })).thenThrows(InvalidCommandError);
      given(missionDecider, [missionApproved]).when(terminate({ trackedTokens: { sequence: -1, tokens: new Map() } })).thenThrows(InvalidCommandError);
    });

    it('spec 2.8: the summary names tokens by count only — no token identifiers, no raw tokens', () => {
      const [event] = missionDecider.decide(terminate({ trackedTokens: tokens }), fold(missionDecider, [missionApproved]));
      expect(JSON.stringify(event)).not.toMatch(/t-1|t-2|t-3|t-w/);
    });
  });

  describe('effectiveState (spec 3)', () => {
    it('spec 3: expiry before stored state; terminated never becomes active', () => {
      const active = fold(missionDecider, [missionApproved]);
      expect(effectiveState(active, at('2026-11-22T16:59:59.999Z'))).toBe('active');
      expect(effectiveState(active, EXPIRES_AT)).toBe('terminated');
      expect(effectiveState(fold(missionDecider, [missionApproved, revokedByAgent]), T2)).toBe('terminated');
      expect(() => effectiveState(missionDecider.initialState, T1)).toThrow(MissionNotFoundError);
    });

    it('spec 3 rule 3: assertMissionActive gives mission_terminated with the reason (also for a due, unrecorded expiry)', () => {
      const active = fold(missionDecider, [missionApproved]);
      expect(assertMissionActive(active, T1)).toBe(active);
      for (const [state, now, reason] of [
        [active, AFTER_EXPIRY, 'expired'],
        [fold(missionDecider, [missionApproved, revokedByAgent]), T2, 'revoked'],
      ] as const) {
        try {
          assertMissionActive(state, now);
          throw new Error('not refused');
        } catch (error) {
          expect(error).toBeInstanceOf(MissionTerminatedError);
          expect(error).toMatchObject({ code: 'mission_terminated', status: 403, members: { mission_status: 'terminated', termination_reason: reason } });
        }
      }
      expect(() => assertMissionActive(missionDecider.initialState, T1)).toThrow(MissionNotFoundError);
    });
  });
});

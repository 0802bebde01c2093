import { fold, given } from '@mission/decider';
import { MissionNotFoundError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { ADMIN, AFTER_EXPIRY, AGENT, APPROVER, EXPIRES_AT, MISSION_S256, OTHER_AGENT, OWNING_AGENT, PERSON, REQUEST_ID, T0, T1, TENANT } from '../testing/fixtures.js';
import type { RecordRefusal } from './mission.commands.js';
import { missionDecider } from './mission.decider.js';
import type { MissionEvent } from './mission.events.js';

const approved = missionDecider.decide(
  { type: 'ApproveMission', approver: APPROVER, missionS256: MISSION_S256, agent: AGENT, approvedBy: 'alice', tenant: TENANT, expiresAt: EXPIRES_AT, now: T0 },
  missionDecider.initialState,
);

const refusal = (overrides: Partial<RecordRefusal> = {}): RecordRefusal => ({
  type: 'RecordRefusal',
  caller: OWNING_AGENT,
  operation: 'terminate',
  error: 'invalid_termination_reason',
  requestId: REQUEST_ID,
  requestedReason: 'administrative',
  now: T1,
  ...overrides,
});

describe('ManagementRequestRefused (spec 6, 2.8, ADR 0018)', () => {
  it('spec 6: an Owning Agent asking for administrative is logged with the deny decision of its policy; the state does not change', () => {
    const [event] = missionDecider.decide(refusal(), fold(missionDecider, approved));
    expect(event).toEqual({
      type: 'ManagementRequestRefused',
      data: {
        approver: APPROVER,
        mission_s256: MISSION_S256,
        sequence: 2,
        occurred_at: T1.toISOString(),
        actor: { id: AGENT, role: 'agent' },
        authorization: { decision: 'deny', policy: 'ps:owning-agent' },
        operation: 'terminate',
        error: 'invalid_termination_reason',
        request_id: REQUEST_ID,
        requested_reason: 'administrative',
      },
    });
    const state = fold(missionDecider, [...approved, event as MissionEvent]);
    expect(state).toMatchObject({ status: 'active', sequence: 2 });
  });

  it.each([
    ['an administrator without purpose', { caller: ADMIN, error: 'invalid_request', requestedReason: 'administrative' }, 'ps:tenant-admin'],
    ['a person with an unusable replacement', { caller: PERSON, error: 'invalid_request', requestedReason: 'superseded', purpose: 'move to the new plan' }, 'ps:person-owns-agent'],
    ['a reused request_id', { caller: PERSON, error: 'idempotency_conflict', requestedReason: 'revoked' }, 'ps:person-owns-agent'],
  ] as const)('spec 6: %s is logged as refused', (_, change, policy) => {
    const [event] = missionDecider.decide(refusal(change as Partial<RecordRefusal>), fold(missionDecider, approved));
    expect(event?.data).toMatchObject({ authorization: { decision: 'deny', policy }, error: change.error });
  });

  it('spec 5.9: an unauthorized caller or an absent mission gets mission_not_found and nothing is logged', () => {
    given(missionDecider, approved).when(refusal({ caller: { role: 'agent', id: OTHER_AGENT } })).thenThrows(MissionNotFoundError);
    given(missionDecider).when(refusal()).thenThrows(MissionNotFoundError);
  });

  it('spec 3: a due expiry is recorded first, then the refusal', () => {
    const events = missionDecider.decide(refusal({ now: AFTER_EXPIRY }), fold(missionDecider, approved));
    expect(events.map((event) => event.type)).toEqual(['MissionTerminated', 'ManagementRequestRefused']);
  });

  it.each([
    ['an unknown error code', { error: 'server_error' }],
    ['an unknown requested reason', { requestedReason: 'paused' }],
    ['a request_id that is not request_id text', { requestId: 'short' }],
  ])('refuses %s as a bug at the caller', (_, change) => {
    given(missionDecider, approved).when(refusal(change as Partial<RecordRefusal>)).thenThrows(InvalidCommandError);
  });
});

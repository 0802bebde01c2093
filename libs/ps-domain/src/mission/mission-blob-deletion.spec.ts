import { fold, given } from '@mission/decider';
import { InvalidRequestError, MissionNotFoundError, MissionTerminatedError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { ADMIN, AFTER_EXPIRY, AGENT, APPROVER, EXPIRES_AT, MISSION_S256, OTHER_REQUEST_ID, OWNING_AGENT, PERSON, REQUEST_ID, T0, T1, T2, TENANT } from '../testing/fixtures.js';
import type { ApproveMission, DeleteMissionBlob } from './mission.commands.js';
import { missionDecider } from './mission.decider.js';
import type { MissionBlobDeleted, MissionEvent, MissionTerminated } from './mission.events.js';
import { assertMissionActive, effectiveState, isBlobDeleted, missionStatusRepresentation, PS_SCHEDULER, terminationResult, type MissionState } from './mission.state.js';
import { MissionStillActiveError } from './mission-blob-deletion.js';

const approveCommand: ApproveMission = { type: 'ApproveMission', approver: APPROVER, missionS256: MISSION_S256, agent: AGENT, approvedBy: 'alice', tenant: TENANT, expiresAt: EXPIRES_AT, now: T0 };
const deleteBlob = (overrides: Partial<DeleteMissionBlob> = {}): DeleteMissionBlob => ({
  type: 'DeleteMissionBlob',
  caller: ADMIN,
  requestId: REQUEST_ID,
  purpose: 'retention policy: delete bodies 30 days after termination',
  now: T2,
  ...overrides,
});

/** Runs commands through the decider like handleCommand does. */
function run(...commands: Parameters<typeof missionDecider.decide>[0][]): { events: MissionEvent[]; state: MissionState } {
  const events: MissionEvent[] = [];
  for (const command of commands) events.push(...missionDecider.decide(command, fold(missionDecider, events)));
  return { events, state: fold(missionDecider, events) };
}

const approved = run(approveCommand).events;
const revoked = run(approveCommand, { type: 'TerminateMission', caller: OWNING_AGENT, reason: 'revoked', requestId: OTHER_REQUEST_ID, now: T1 }).events;

describe('spec 3 rule 5, spec 8 (terminal state retention): deleting the mission body keeps a tombstone', () => {
  it('spec 3 rule 5: an administrator of the tenant deletes the body of a terminated mission → MissionBlobDeleted with spec 2.8 fields', () => {
    const state = given(missionDecider, revoked).when(deleteBlob()).then([
      {
        type: 'MissionBlobDeleted',
        data: {
          approver: APPROVER,
          mission_s256: MISSION_S256,
          sequence: 3,
          occurred_at: T2.toISOString(),
          actor: { id: ADMIN.id, role: 'admin' },
          authorization: { decision: 'permit', policy: 'ps:tenant-admin' },
          blob_stream: `psblob-${MISSION_S256}`,
          request_id: REQUEST_ID,
          purpose: 'retention policy: delete bodies 30 days after termination',
          termination_reason: 'revoked',
          terminated_at: T1.toISOString(),
        },
      } satisfies MissionBlobDeleted,
    ]);
    expect(isBlobDeleted(state)).toBe(true);
  });

  it('spec 3 rule 5: the body of an active mission is never deleted (MissionStillActiveError)', () => {
    given(missionDecider, approved).when(deleteBlob({ now: T1 })).thenThrows(MissionStillActiveError);
  });

  it('spec 3 (expires_at row): a mission past expires_at is terminated first (expired, PS scheduler), then its body may be deleted', () => {
    const { events, state } = run(approveCommand, deleteBlob({ now: AFTER_EXPIRY }));
    expect(events.map((event) => event.type)).toEqual(['MissionApproved', 'MissionTerminated', 'MissionBlobDeleted']);
    expect((events[1] as MissionTerminated).data).toMatchObject({ reason: 'expired', actor: PS_SCHEDULER, terminated_at: EXPIRES_AT.toISOString() });
    expect(events[2]!.data).toMatchObject({ sequence: 3, termination_reason: 'expired' });
    expect(isBlobDeleted(state)).toBe(true);
  });

  it('spec 5.3–5.4: only an administrator of the mission tenant; the Owning Agent, the Person and a foreign administrator get mission_not_found', () => {
    given(missionDecider, revoked).when(deleteBlob({ caller: OWNING_AGENT })).thenThrows(MissionNotFoundError);
    given(missionDecider, revoked).when(deleteBlob({ caller: PERSON })).thenThrows(MissionNotFoundError);
    given(missionDecider, revoked).when(deleteBlob({ caller: { role: 'admin', id: 'ops-2', tenant: 'tenant-2' } })).thenThrows(MissionNotFoundError);
    given(missionDecider, []).when(deleteBlob()).thenThrows(MissionNotFoundError);
  });

  it('spec 5.5, 4.2: purpose and a request_id of at least 128 bits are required (invalid_request)', () => {
    given(missionDecider, revoked).when(deleteBlob({ purpose: '' })).thenThrows(InvalidRequestError);
    given(missionDecider, revoked).when(deleteBlob({ purpose: undefined as never })).thenThrows(InvalidRequestError);
    given(missionDecider, revoked).when(deleteBlob({ requestId: 'short' })).thenThrows(InvalidRequestError);
  });

  it('spec 3 rule 5: a repeated deletion (same or another request_id) decides nothing', () => {
    const deleted = run(approveCommand, { type: 'TerminateMission', caller: OWNING_AGENT, reason: 'revoked', requestId: OTHER_REQUEST_ID, now: T1 }, deleteBlob()).events;
    given(missionDecider, deleted).when(deleteBlob()).thenNothingHappens();
    given(missionDecider, deleted).when(deleteBlob({ requestId: 'Xk2pQ9wLr4TzB7nVc1sHfM' })).thenNothingHappens();
  });

  describe('spec 3 rule 1, rule 5: the tombstone keeps the reference terminated', () => {
    const tombstone = run(approveCommand, { type: 'TerminateMission', caller: OWNING_AGENT, reason: 'revoked', requestId: OTHER_REQUEST_ID, now: T1 }, deleteBlob()).events;
    const state = fold(missionDecider, tombstone);

    it('spec 4.1, 2.3: status still answers terminated with the first reason and timestamp', () => {
      expect(effectiveState(state, T2)).toBe('terminated');
      expect(missionStatusRepresentation(state, T2, 30)).toMatchObject({ mission_status: 'terminated', termination_reason: 'revoked', terminated_at: T1.toISOString() });
      const events = missionDecider.decide({ type: 'ReadMissionStatus', caller: PERSON, now: T2 }, state);
      expect(events).toMatchObject([{ type: 'MissionStatusRead', data: { sequence: 4, mission_status: 'terminated', termination_reason: 'revoked' } }]);
    });

    it('spec 3 (terminated row): terminate answers the existing terminal status (LateTerminationRequested), never a new termination', () => {
      const events = missionDecider.decide({ type: 'TerminateMission', caller: PERSON, reason: 'completed', requestId: 'Rm7yT3kWq0Zs5Nb8Lc2VdJ', now: T2 }, state);
      expect(events.map((event) => event.type)).toEqual(['LateTerminationRequested']);
      expect(terminationResult(fold(missionDecider, [...tombstone, ...events]), T2)).toMatchObject({ termination_reason: 'revoked', terminated_at: T1.toISOString() });
    });

    it('spec 3 rule 3: every other request under the reference gets mission_terminated', () => {
      expect(() => assertMissionActive(state, T2)).toThrow(MissionTerminatedError);
    });

    it('spec 3 rule 1: re-approving the same reference decides nothing and the state stays terminated; a different approval is refused', () => {
      expect(missionDecider.decide(approveCommand, state)).toEqual([]);
      expect(() => missionDecider.decide({ ...approveCommand, now: T2, expiresAt: undefined as never }, state)).toThrow(InvalidCommandError);
      // Even a replayed MissionApproved event (e.g. appended by a buggy writer) never resets the state.
      const replayed = fold(missionDecider, [...tombstone, { ...tombstone[0]!, data: { ...tombstone[0]!.data, sequence: 5 } } as MissionEvent]);
      expect(replayed).toMatchObject({ status: 'terminated', termination: { reason: 'revoked' } });
      expect(isBlobDeleted(replayed)).toBe(true);
    });

    it('spec 3 (expires_at row): applyExpiry on the tombstone decides nothing', () => {
      expect(missionDecider.decide({ type: 'ApplyMissionExpiry', now: AFTER_EXPIRY }, state)).toEqual([]);
    });
  });
});

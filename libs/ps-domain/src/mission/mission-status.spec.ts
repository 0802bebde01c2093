import { fold } from '@mission/decider';
import { MissionNotFoundError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { AFTER_EXPIRY, AGENT, APPROVER, at, EXPIRES_AT, MISSION_S256, PERSON, REQUEST_ID, T0, T1, T2, TENANT, without } from '../testing/fixtures.js';
import { missionDecider } from './mission.decider.js';
import type { MissionApproved, MissionEvent } from './mission.events.js';
import { missionStatusRepresentation, terminationResult } from './mission.state.js';

const approved: MissionApproved = {
  type: 'MissionApproved',
  data: {
    approver: APPROVER,
    mission_s256: MISSION_S256,
    sequence: 1,
    occurred_at: T0.toISOString(),
    actor: { id: 'alice', role: 'person' },
    authorization: { decision: 'permit', policy: 'ps:person-owns-agent' },
    agent: AGENT,
    approved_by: 'alice',
    tenant: TENANT,
    approved_at: T0.toISOString(),
    expires_at: EXPIRES_AT.toISOString(),
  },
};
const approvedWithoutExpiry: MissionApproved = { type: 'MissionApproved', data: without(approved.data, 'expires_at') };
const completed = missionDecider.decide({ type: 'TerminateMission', caller: PERSON, reason: 'completed', requestId: REQUEST_ID, now: T1 }, fold(missionDecider, [approved]));
const state = (...events: MissionEvent[]) => fold(missionDecider, events);

describe('status representation (spec 2.3, spec 4.1)', () => {
  it('spec 2.3: an active mission has mission_s256, mission_status, approved_at, expires_at, observed_at, fresh_until and no termination members', () => {
    const representation = missionStatusRepresentation(state(approved), T1, 30);
    expect(representation).toEqual({
      mission_s256: MISSION_S256,
      mission_status: 'active',
      approved_at: T0.toISOString(),
      expires_at: EXPIRES_AT.toISOString(),
      observed_at: T1.toISOString(),
      fresh_until: '2026-11-22T10:00:30.000Z',
    });
    expect(representation).not.toHaveProperty('terminated_at');
    expect(representation).not.toHaveProperty('termination_reason');
  });

  it('spec 2.3: expires_at only if the blob has one', () => {
    expect(missionStatusRepresentation(state(approvedWithoutExpiry), T1, 30)).not.toHaveProperty('expires_at');
  });

  it('spec 2.3: a terminated mission has terminated_at and termination_reason (the first termination)', () => {
    const late = missionDecider.decide({ type: 'TerminateMission', caller: PERSON, reason: 'revoked', requestId: 'Xk2pQ9wLr4TzB7nVc1sHfM', now: T2 }, state(approved, ...completed));
    expect(missionStatusRepresentation(state(approved, ...completed, ...late), T2, 30)).toEqual({
      mission_s256: MISSION_S256,
      mission_status: 'terminated',
      approved_at: T0.toISOString(),
      expires_at: EXPIRES_AT.toISOString(),
      terminated_at: T1.toISOString(),
      termination_reason: 'completed',
      observed_at: T2.toISOString(),
      fresh_until: '2026-11-22T11:00:30.000Z',
    });
  });

  it('spec 3: past expires_at the representation is terminated/expired at expires_at, recorded or not', () => {
    const expected = { mission_status: 'terminated', terminated_at: EXPIRES_AT.toISOString(), termination_reason: 'expired' };
    expect(missionStatusRepresentation(state(approved), AFTER_EXPIRY, 30)).toMatchObject(expected);
    const recorded = missionDecider.decide({ type: 'ApplyMissionExpiry', now: at('2026-11-22T18:00:00Z') }, state(approved));
    expect(missionStatusRepresentation(state(approved, ...recorded), at('2026-11-22T18:00:00Z'), 30)).toMatchObject(expected);
  });

  it('spec 2.3 / 4.1: fresh_until = observed_at + the freshness interval (DESIGN 3.3), never past expires_at while active', () => {
    expect(missionStatusRepresentation(state(approved), T1, 0).fresh_until).toBe(T1.toISOString());
    expect(missionStatusRepresentation(state(approved), T1, 45).fresh_until).toBe('2026-11-22T10:00:45.000Z');
    expect(missionStatusRepresentation(state(approved), at('2026-11-22T16:59:50.000Z'), 30).fresh_until).toBe(EXPIRES_AT.toISOString());
    expect(missionStatusRepresentation(state(approvedWithoutExpiry), at('2026-11-22T16:59:50.000Z'), 30).fresh_until).toBe('2026-11-22T17:00:20.000Z');
  });

  it('refuses a missing mission (mission_not_found) and a bad freshness or time (a bug at the caller)', () => {
    expect(() => missionStatusRepresentation(missionDecider.initialState, T1, 30)).toThrow(MissionNotFoundError);
    expect(() => missionStatusRepresentation(state(approved), T1, -1)).toThrow(InvalidCommandError);
    expect(() => missionStatusRepresentation(state(approved), T1, Number.NaN)).toThrow(InvalidCommandError);
    expect(() => missionStatusRepresentation(state(approved), new Date(Number.NaN), 30)).toThrow(InvalidCommandError);
  });
});

describe('terminate result (spec 4.2)', () => {
  it('spec 4.2: mission_s256, mission_status terminated, terminated_at and termination_reason of the first termination', () => {
    expect(terminationResult(state(approved, ...completed), T2)).toEqual({ mission_s256: MISSION_S256, mission_status: 'terminated', terminated_at: T1.toISOString(), termination_reason: 'completed' });
  });

  it('spec 4.2: refuses while the mission is active (a bug at the caller)', () => {
    expect(() => terminationResult(state(approved), T1)).toThrow(InvalidCommandError);
  });
});

import fc from 'fast-check';
import type { AuthorizationRecord } from './management-caller.js';
import { decodeMissionState, encodeMissionState } from './mission-snapshot.js';
import { missionDecider } from './mission.decider.js';
import type { LateTerminationRequested, MissionApproved, MissionTerminated } from './mission.events.js';
import { missionExists, requestKey, type MissionState } from './mission.state.js';
import { AGENT, APPROVER, EXPIRES_AT, MISSION_S256, T0, T1, T2, TENANT } from '../testing/fixtures.js';

/**
 * ADR 0080: the request keys of terminate requests logged after termination are a persistent set, so folding a
 * mission after n late requests is not O(n²). What must hold (spec 3: a repeated terminate request decides nothing):
 * the keys are exactly those a copy-per-event fold gives, no state the fold produced earlier ever sees a later key
 * (a decision over an earlier state must not treat a new request as a repeat), and a snapshot round trip keeps them.
 */

const base = { approver: APPROVER, mission_s256: MISSION_S256 };
const permit = { decision: 'permit', policy: 'ps:owning-agent' } as AuthorizationRecord;
const ACTORS = [{ id: AGENT, role: 'agent' }, { id: 'alice', role: 'person' }, { id: 'ops-1', role: 'admin' }];

const approved: MissionApproved = {
  type: 'MissionApproved',
  data: { ...base, sequence: 1, occurred_at: T0.toISOString(), actor: { id: 'alice', role: 'person' }, authorization: permit, agent: AGENT, approved_by: 'alice', tenant: TENANT, approved_at: T0.toISOString(), expires_at: EXPIRES_AT.toISOString() },
};
const terminated: MissionTerminated = {
  type: 'MissionTerminated',
  data: { ...base, sequence: 2, occurred_at: T1.toISOString(), actor: ACTORS[0]!, authorization: permit, reason: 'revoked', terminated_at: T1.toISOString(), request_id: 'first' },
};
const late = (sequence: number, actor: number, request: number): LateTerminationRequested => ({
  type: 'LateTerminationRequested',
  data: {
    ...base, sequence, occurred_at: T2.toISOString(), actor: ACTORS[actor]!, authorization: permit, requested_reason: 'revoked', request_id: `request-${request}`,
    termination_reason: 'revoked', terminated_at: T1.toISOString(),
  },
});

const requests = fc.array(fc.tuple(fc.nat(2), fc.nat(40)), { maxLength: 120, size: 'max' });
const keysOf = (state: MissionState): string[] => (missionExists(state) ? [...state.requestKeys].sort() : []);

describe('late terminate request keys on a persistent set (ADR 0080; spec 3 rule 3, 6)', () => {
  const afterTermination = missionDecider.evolve(missionDecider.evolve(missionDecider.initialState, approved), terminated);

  it('holds exactly the keys of a copy-per-event fold, and no earlier state ever sees a later key', () => {
    fc.assert(
      fc.property(requests, (sequence) => {
        const model = new Set([requestKey(ACTORS[0]!, 'first')]);
        let state = afterTermination;
        const history: { state: MissionState; then: string[] }[] = [{ state, then: keysOf(state) }];
        sequence.forEach(([actor, request], index) => {
          state = missionDecider.evolve(state, late(3 + index, actor, request));
          model.add(requestKey(ACTORS[actor]!, `request-${request}`));
          history.push({ state, then: keysOf(state) });
        });
        expect(keysOf(state)).toEqual([...model].sort());
        for (const { state: earlier, then } of history) expect(keysOf(earlier)).toEqual(then);
      }),
      { numRuns: 200 },
    );
  });

  it('a snapshot keeps the keys, and the decoded state takes new ones without changing what was decoded', () => {
    let state = afterTermination;
    for (let i = 0; i < 20; i++) state = missionDecider.evolve(state, late(3 + i, i % 3, i));
    const decoded = decodeMissionState(encodeMissionState(state));
    expect(keysOf(decoded)).toEqual(keysOf(state));
    const next = missionDecider.evolve(decoded, late(23, 1, 99));
    expect(keysOf(next)).toEqual([...keysOf(state), requestKey(ACTORS[1]!, 'request-99')].sort());
    expect(keysOf(decoded)).toEqual(keysOf(state));
  });
});

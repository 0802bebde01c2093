import { given } from '@mission/decider';
import { InvalidRequestError, InvalidTerminationReasonError, MissionTerminatedError } from '../errors/management.errors.js';
import { ADMIN, MISSION_S256, OTHER_S256, OWNING_AGENT, PERSON, REQUEST_ID, T1 } from '../testing/fixtures.js';
import { base, missionApproved, permit, revokedByAgent, terminate } from '../testing/mission.fixtures.js';
import type { TerminateMission } from './mission.commands.js';
import { missionDecider } from './mission.decider.js';
import { assertMissionActive } from './mission.state.js';

/** TerminateMission: the reasons each role may give, supersession and request_id (spec 4.2, 5.4, 8). */
describe('Mission aggregate (psmission-<s256>, spec 2.8, 3, 6)', () => {
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
});

import { initialMissionState, type Mission } from '../mission/mission.state.js';
import type { MissionLifecycleState } from '../mission/mission-lifecycle.js';
import { at, EXPIRES_AT, MISSION_ID, missionRecord, OTHER_MISSION_ID, parentLink } from '../testing/fixtures.js';
import { requireDelegableParent, requireLineageActive, requireParentMatch } from './child-creation-checks.js';
import { ChildCreationDeniedError } from './child-creation-denied.error.js';
import { CHILD_DENIAL_REASONS, OAUTH_ERROR_FOR_DENIAL } from './child-denial-reasons.js';
import { denied, entry, NOW, parentMission, REPORTS, ROOT_ID, set, VENDORS } from '../testing/child-creation-fixtures.js';

/** Spec 7's refusal table, and steps 3–5: the parent named, its lineage active, the parent delegable. */
describe('Child Mission creation checks (spec 4.1 steps 3–9, spec 7)', () => {
  describe('ChildCreationDeniedError (spec 7 table)', () => {
    it('spec 7: each denial reason is answered with its OAuth error, and the set of reasons is closed', () => {
      expect(OAUTH_ERROR_FOR_DENIAL).toEqual({
        parent_not_active: 'invalid_grant',
        parent_mismatch: 'invalid_grant',
        delegation_not_permitted: 'invalid_request',
        child_actor_not_allowed: 'invalid_request',
        not_strict_subset: 'invalid_request',
        fanout_exceeded: 'invalid_request',
        policy_denied: 'access_denied',
      });
      expect([...CHILD_DENIAL_REASONS].sort()).toEqual(Object.keys(OAUTH_ERROR_FOR_DENIAL).sort());
    });

    it.each(CHILD_DENIAL_REASONS)('spec 7 %s: the error carries the reason and derives the OAuth error from it', (reason) => {
      const error = new ChildCreationDeniedError(reason, 'because');
      expect(error).toMatchObject({ missionDenialReason: reason, error: OAUTH_ERROR_FOR_DENIAL[reason], message: 'because', name: 'ChildCreationDeniedError' });
    });
  });

  describe('step 3: requireParentMatch', () => {
    it('spec 4.1 step 3, spec 5 rule 2: passes when parent names the mission parent_token resolved to', () => {
      expect(() => requireParentMatch(OTHER_MISSION_ID, OTHER_MISSION_ID)).not.toThrow();
    });

    it.each([
      ['another mission', MISSION_ID],
      ['the same id in another case', OTHER_MISSION_ID.toUpperCase()],
      ['the id with surrounding space', ` ${OTHER_MISSION_ID}`],
      ['an empty parent', ''],
    ])('spec 4.1 step 3, spec 7 parent_mismatch: refuses when parent is %s', (_, claimed) => {
      denied(() => requireParentMatch(OTHER_MISSION_ID, claimed), 'parent_mismatch', 'invalid_grant');
    });
  });

  describe('step 4: requireLineageActive', () => {
    const parent = (lifecycle: MissionLifecycleState = 'active', overrides: Partial<Mission> = {}): Mission =>
      parentMission({ lifecycle, parent: parentLink({ id: ROOT_ID }), ...overrides });
    const root = (lifecycle: MissionLifecycleState = 'active', overrides: Partial<Mission> = {}): Mission => missionRecord({ missionId: ROOT_ID, lifecycle, ...overrides });

    it('spec 4.1 step 4: passes for an active root parent', () => {
      expect(() => requireLineageActive([parentMission()], NOW)).not.toThrow();
    });

    it('spec 4.1 step 4, spec 3.2 rule 5, DESIGN 2.4: passes when the parent and every ancestor are active', () => {
      expect(() => requireLineageActive([parent(), root()], NOW)).not.toThrow();
      expect(() => requireLineageActive([parent(), root()], at('2026-11-22T16:59:59.999Z'))).not.toThrow();
    });

    it.each(['suspended', 'completed', 'superseded', 'revoked', 'expired', 'cascaded'] as const)(
      'spec 4.1 step 4, spec 7 parent_not_active: refuses a %s parent',
      (state) => {
        const refusal = denied(() => requireLineageActive([parent(state), root()], NOW), 'parent_not_active', 'invalid_grant');
        expect(refusal.message).toBe(`the parent mission is ${state}`);
      },
    );

    it('spec 4.1 step 4, DESIGN 2.3, spec 7 parent_not_active: refuses a parent expired by time before the expiry is recorded', () => {
      const refusal = denied(() => requireLineageActive([parent('active'), root()], EXPIRES_AT), 'parent_not_active', 'invalid_grant');
      expect(refusal.message).toBe('the parent mission is expired');
    });

    it.each(['suspended', 'revoked', 'completed', 'cascaded'] as const)('spec 3.2 rule 5, DESIGN 2.4, spec 7 parent_not_active: refuses under a %s ancestor', (state) => {
      const refusal = denied(() => requireLineageActive([parent(), root(state)], NOW), 'parent_not_active', 'invalid_grant');
      expect(refusal.message).toBe(`an ancestor of the parent mission is ${state}`);
    });

    it('spec 3.2 rule 5, DESIGN 2.4, spec 7 parent_not_active: refuses under an ancestor expired by time (stored active)', () => {
      const shortRoot = root('active', { expiresAt: at('2026-11-22T09:30:00.000Z') });
      const refusal = denied(() => requireLineageActive([parent(), shortRoot], NOW), 'parent_not_active', 'invalid_grant');
      expect(refusal.message).toBe('an ancestor of the parent mission is expired');
    });

    it('spec 3.2 rule 5: refuses when a great-grandparent is suspended (every ancestor, not only the nearest)', () => {
      const grandparent = missionRecord({ missionId: ROOT_ID, parent: parentLink({ id: MISSION_ID }) });
      const greatGrandparent = missionRecord({ missionId: MISSION_ID, lifecycle: 'suspended' });
      denied(() => requireLineageActive([parent(), grandparent, greatGrandparent], NOW), 'parent_not_active', 'invalid_grant');
    });

    it('spec 4.1 step 4, spec 7 parent_not_active: a missing parent or ancestor stream refuses', () => {
      denied(() => requireLineageActive([initialMissionState], NOW), 'parent_not_active', 'invalid_grant');
      denied(() => requireLineageActive([parent(), initialMissionState], NOW), 'parent_not_active', 'invalid_grant');
    });

    it('spec 4.1 step 4: the nearest non-active generation is reported', () => {
      const refusal = denied(() => requireLineageActive([parent('suspended'), root('revoked')], NOW), 'parent_not_active', 'invalid_grant');
      expect(refusal.message).toBe('the parent mission is suspended');
    });
  });

  describe('step 5: requireDelegableParent', () => {
    it('spec 4.1 step 5, spec 1 item 3: passes when some parent entry carries delegation.children', () => {
      expect(() => requireDelegableParent(parentMission())).not.toThrow();
      const onlyLast = set(entry(VENDORS, ['vendors.read']), entry(REPORTS, ['reports.read'], { delegation: { children: {} } }));
      expect(() => requireDelegableParent(parentMission({ authoritySet: onlyLast }))).not.toThrow();
    });

    it.each([
      ['no entry has delegation', set(entry(VENDORS, ['vendors.read']))],
      ['entries delegate in-mission only (max_depth, allowed_delegates)', set(entry(VENDORS, ['vendors.read'], { delegation: { max_depth: 2, allowed_delegates: [{ sub_profile: 'ai_agent' }] } }))],
      ['an entry carries an unknown delegation member but no children', set(entry(VENDORS, ['vendors.read'], { delegation: { grandchildren: {} } }))],
    ])('spec 4.1 step 5, spec 7 delegation_not_permitted: refuses when %s', (_, authoritySet) => {
      denied(() => requireDelegableParent(parentMission({ authoritySet })), 'delegation_not_permitted', 'invalid_request');
    });
  });
});

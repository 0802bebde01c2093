import { fold } from '@mission/decider';
import { authorityHash } from '../authority-set/authority-hash.js';
import type { AuthorityEntry, AuthoritySet } from '../authority-set/authority-set.js';
import { parseAuthorizationDetails } from '../authority-set/parse-authorization-details.js';
import type { MissionEvent } from '../mission/mission.events.js';
import { missionDecider } from '../mission/mission.decider.js';
import { missionIdFromBytes } from '../mission/mission-id.js';
import { initialMissionState, missionExists, type AttachedChild, type Mission, type MissionState } from '../mission/mission.state.js';
import type { MissionLifecycleState } from '../mission/mission-lifecycle.js';
import { at, attachmentExtras, CLIENT, createCommand, EXPIRES_AT, ISSUER, MISSION_ID, missionRecord, OTHER_MISSION_ID, parentLink, T0 } from '../testing/fixtures.js';
import type { ChildActor, RegisteredActor } from './child-actor.js';
import {
  requireChildActorAllowed,
  requireCreationPolicy,
  requireDelegableParent,
  requireFanOut,
  requireLineageActive,
  requireParentMatch,
  requireStrictSubset,
} from './child-creation-checks.js';
import { ChildCreationDeniedError } from './child-creation-denied.error.js';
import { OAUTH_ERROR_FOR_DENIAL } from './child-denial-reasons.js';
import type { ChildCreationPolicyContext, ChildCreationPolicyRule } from './child-creation-policy.js';
import { CHILD_DENIAL_REASONS, type ChildDenialReason } from './child-denial-reasons.js';

const NOW = at('2026-11-22T10:00:00.000Z');
const ROOT_ID = missionIdFromBytes(new Uint8Array(16).fill(3));
const childId = (n: number): string => missionIdFromBytes(new Uint8Array(16).fill(20 + n));

const TYPE = 'mission_resource_access';
const INVOICES = 'https://erp.example.com/invoices';
const PAYMENTS = 'https://erp.example.com/payments';
const REPORTS = 'https://erp.example.com/reports';
const VENDORS = 'https://erp.example.com/vendors';
const LEDGER = 'https://erp.example.com/ledger';
const ARCHIVE = 'https://erp.example.com/archive';
const CONTRACTS = 'https://erp.example.com/contracts';

// RFC 6749 §5.2: what an error_description may contain (refusal messages are sent as one).
const ERROR_DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/;

const entry = (resource: string, actions: string[], extra: Partial<AuthorityEntry> = {}): AuthorityEntry => ({ type: TYPE, resource, actions, ...extra });
const set = (...entries: AuthorityEntry[]): AuthoritySet => parseAuthorizationDetails(entries);

/**
 * 0: invoices, tenant-bound, max_children 2, ai_agent actors only;
 * 1: payments, max_amount, delegation.max_depth 1, max_children 1, policy short-lived;
 * 2: reports, children without controls;
 * 3: vendors, not delegable;
 * 4: ledger, two child generations, max_children 5.
 */
const PARENT_SET = set(
  entry(INVOICES, ['invoices.list', 'invoices.read'], {
    constraints: { tenant: 'acme' },
    delegation: { children: { max_children: 2, allowed_child_actors: [{ sub_profile: 'ai_agent' }] } },
  }),
  entry(PAYMENTS, ['payments.read'], {
    constraints: { max_amount: { amount: '100.00', currency: 'EUR' } },
    delegation: { max_depth: 1, children: { max_children: 1, child_creation_policy: 'short-lived' } },
  }),
  entry(REPORTS, ['reports.read'], { delegation: { children: {} } }),
  entry(VENDORS, ['vendors.read']),
  entry(LEDGER, ['ledger.read'], { delegation: { children: { max_child_depth: 2, max_children: 5 } } }),
);

const parentMission = (overrides: Partial<Mission> = {}): Mission =>
  missionRecord({ missionId: OTHER_MISSION_ID, authoritySet: PARENT_SET, authorityHash: authorityHash(ISSUER, PARENT_SET), ...overrides });

const AI_AGENT: RegisteredActor = { sub: 'child-agent-1', iss: ISSUER, sub_profile: 'ai_agent client_instance' };
const TOOL: RegisteredActor = { sub: 'child-tool-1', iss: ISSUER, sub_profile: 'tool' };
/** 0: invoices (all three actions) for human actors; 1: invoices.read for ai_agent actors. */
const SPLIT_SET = set(
  entry(INVOICES, ['invoices.list', 'invoices.read', 'invoices.write'], { delegation: { children: { allowed_child_actors: [{ sub_profile: 'human' }] } } }),
  entry(INVOICES, ['invoices.read'], { delegation: { children: { allowed_child_actors: [{ sub_profile: 'ai_agent' }] } } }),
);
const HUMAN: RegisteredActor = { sub: 'child-person-1', iss: ISSUER, sub_profile: 'human' };
const actorOf = (registered: RegisteredActor, overrides: Partial<ChildActor> = {}): ChildActor => ({ sub: registered.sub, ...overrides });

/** Runs `check`, expects a ChildCreationDeniedError with the spec 7 reason and OAuth error, and returns it. */
function denied(check: () => unknown, reason: ChildDenialReason, error: 'invalid_grant' | 'invalid_request' | 'access_denied'): ChildCreationDeniedError {
  let thrown: unknown;
  try {
    check();
  } catch (caught) {
    thrown = caught;
  }
  expect(thrown).toBeInstanceOf(ChildCreationDeniedError);
  const refusal = thrown as ChildCreationDeniedError;
  expect({ missionDenialReason: refusal.missionDenialReason, error: refusal.error }).toEqual({ missionDenialReason: reason, error });
  expect(refusal.message).toMatch(ERROR_DESCRIPTION);
  return refusal;
}

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

  describe('step 6: requireChildActorAllowed', () => {
    const allowed = (child: AuthoritySet, registered: RegisteredActor | undefined, actor?: ChildActor, parent = parentMission()) =>
      requireChildActorAllowed(parent, child, actor ?? actorOf(registered ?? AI_AGENT), registered, ISSUER);

    it('spec 4.1 step 6, spec 2.4: an admitted actor passes; returns every parent entry whose children admit it', () => {
      const admitting = allowed(set(entry(INVOICES, ['invoices.read'], { constraints: { tenant: 'acme' } })), AI_AGENT);
      expect([...admitting].sort((a, b) => a - b)).toEqual([0, 1, 2, 4]);
    });

    it('spec 2.4: entries without allowed_child_actors admit any registered actor; an entry restricted to ai_agent does not admit a tool', () => {
      expect([...allowed(set(entry(REPORTS, ['reports.read'])), TOOL)].sort((a, b) => a - b)).toEqual([1, 2, 4]);
    });

    it('spec 2.2, DESIGN 2.2: a request with iss equal to this issuer, and a claimed profile the registration backs, passes', () => {
      expect(() => allowed(set(entry(REPORTS, ['reports.read'])), AI_AGENT, actorOf(AI_AGENT, { iss: ISSUER, sub_profile: 'ai_agent' }))).not.toThrow();
      expect(() => allowed(set(entry(REPORTS, ['reports.read'])), AI_AGENT, actorOf(AI_AGENT, { sub_profile: 'client_instance ai_agent' }))).not.toThrow();
    });

    it('spec 4.1 step 6, spec 7 child_actor_not_allowed: an unregistered sub is refused', () => {
      denied(() => allowed(set(entry(REPORTS, ['reports.read'])), undefined, { sub: 'who-knows' }), 'child_actor_not_allowed', 'invalid_request');
    });

    it('spec 1 item 9, spec 2.2 iss, spec 7 child_actor_not_allowed: a child actor of a foreign issuer is refused', () => {
      const refusal = denied(
        () => allowed(set(entry(REPORTS, ['reports.read'])), AI_AGENT, actorOf(AI_AGENT, { iss: 'https://other-issuer.example' })),
        'child_actor_not_allowed',
        'invalid_request',
      );
      expect(refusal.message).not.toContain('other-issuer');
    });

    it('DESIGN 2.2, spec 7 child_actor_not_allowed: a claimed sub_profile the registration does not back is refused', () => {
      denied(() => allowed(set(entry(REPORTS, ['reports.read'])), TOOL, actorOf(TOOL, { sub_profile: 'ai_agent' })), 'child_actor_not_allowed', 'invalid_request');
      denied(() => allowed(set(entry(REPORTS, ['reports.read'])), AI_AGENT, actorOf(AI_AGENT, { sub_profile: 'ai_agent human' })), 'child_actor_not_allowed', 'invalid_request');
    });

    it('DESIGN 2.2: a claimed profile cannot get an actor past allowed_child_actors (matching uses the registration)', () => {
      denied(
        () => allowed(set(entry(INVOICES, ['invoices.read'], { constraints: { tenant: 'acme' } })), TOOL, actorOf(TOOL, { sub_profile: 'tool' })),
        'child_actor_not_allowed',
        'invalid_request',
      );
    });

    it('spec 2.4 allowed_child_actors, spec 7 child_actor_not_allowed: refused when the applicable parent entry does not admit the actor, naming the child entry', () => {
      const child = set(entry(REPORTS, ['reports.read']), entry(INVOICES, ['invoices.read'], { constraints: { tenant: 'acme' } }));
      const refusal = denied(() => allowed(child, TOOL), 'child_actor_not_allowed', 'invalid_request');
      expect(refusal.message).toContain('authorization_details[1]');
    });

    it('spec 2.2: a space-separated registered sub_profile list satisfies a matcher on any of its values', () => {
      const parent = parentMission({ authoritySet: set(entry(INVOICES, ['invoices.read'], { delegation: { children: { allowed_child_actors: [{ sub_profile: 'client_instance' }] } } })) });
      expect([...allowed(set(entry(INVOICES, ['invoices.read'])), AI_AGENT, undefined, parent)]).toEqual([0]);
      denied(() => allowed(set(entry(INVOICES, ['invoices.read'])), TOOL, undefined, parent), 'child_actor_not_allowed', 'invalid_request');
    });

    it('spec 2.4 rule 1, spec 7 child_actor_not_allowed: a matcher member the issuer does not know never admits', () => {
      const parent = parentMission({ authoritySet: set(entry(INVOICES, ['invoices.read'], { delegation: { children: { allowed_child_actors: [{ tenant: 'acme' }] } } })) });
      denied(() => allowed(set(entry(INVOICES, ['invoices.read'])), AI_AGENT, undefined, parent), 'child_actor_not_allowed', 'invalid_request');
    });

    it('spec 2.4: with several applicable parent entries for the resource, one that admits the actor is enough at step 6', () => {
      const parent = parentMission({ authoritySet: SPLIT_SET });
      expect([...allowed(set(entry(INVOICES, ['invoices.read'])), AI_AGENT, undefined, parent)]).toEqual([1]);
      expect([...allowed(set(entry(INVOICES, ['invoices.read'])), HUMAN, undefined, parent)]).toEqual([0]);
      denied(() => allowed(set(entry(INVOICES, ['invoices.read'])), TOOL, undefined, parent), 'child_actor_not_allowed', 'invalid_request');
    });

    it('spec 4.1 step order: a child entry with no delegable parent entry for its resource is left to step 7', () => {
      expect(() => allowed(set(entry(VENDORS, ['vendors.read'])), TOOL)).not.toThrow();
      expect(() => allowed(set(entry('https://erp.example.com/unknown', ['x.read'])), TOOL)).not.toThrow();
    });
  });

  describe('step 7: requireStrictSubset', () => {
    const subset = (child: AuthoritySet, registered: RegisteredActor = AI_AGENT, parent = parentMission()): readonly number[] =>
      requireStrictSubset(parent, child, requireChildActorAllowed(parent, child, actorOf(registered), registered, ISSUER));

    it('spec 2.5 rule 1, spec 5 rule 7: returns per child entry the index of the justifying parent entry', () => {
      const child = set(
        entry(REPORTS, ['reports.read']),
        entry(INVOICES, ['invoices.read'], { constraints: { tenant: 'acme' } }),
        entry(PAYMENTS, ['payments.read'], { constraints: { max_amount: { amount: '50', currency: 'EUR' } } }),
        entry(INVOICES, ['invoices.list'], { constraints: { tenant: 'acme' } }),
      );
      expect(subset(child)).toEqual([2, 0, 1, 0]);
    });

    it('spec 2.5 rule 1: per-entry equality is permitted (same actions and constraints)', () => {
      expect(subset(set(entry(INVOICES, ['invoices.list', 'invoices.read'], { constraints: { tenant: 'acme' } })))).toEqual([0]);
    });

    it('spec 2.4 max_child_depth, DESIGN 2.4: a child entry may carry children reduced by one generation', () => {
      expect(subset(set(entry(LEDGER, ['ledger.read'], { delegation: { children: { max_child_depth: 1, max_children: 5 } } })))).toEqual([4]);
      expect(subset(set(entry(LEDGER, ['ledger.read'], { delegation: { children: { max_child_depth: 1, max_children: 2 } } })))).toEqual([4]);
    });

    it.each([
      ['an extra action (spec 2.5 rule 2)', entry(INVOICES, ['invoices.read', 'invoices.write'], { constraints: { tenant: 'acme' } })],
      ['a dropped constraint (spec 7 example)', entry(INVOICES, ['invoices.read'])],
      ['a broader constraint value', entry(PAYMENTS, ['payments.read'], { constraints: { max_amount: { amount: '100.01', currency: 'EUR' } } })],
      ['a contained resource (spec 2.5 rule 6: no resource containment)', entry(`${INVOICES}/2026`, ['invoices.read'], { constraints: { tenant: 'acme' } })],
      ['a resource the parent does not have', entry('https://erp.example.com/unknown', ['x.read'])],
      ['a greater delegation.max_depth (spec 2.5 rule 3)', entry(PAYMENTS, ['payments.read'], { constraints: { max_amount: { amount: '1', currency: 'EUR' } }, delegation: { max_depth: 2 } })],
      ['children at the max_child_depth limit (spec 2.4)', entry(REPORTS, ['reports.read'], { delegation: { children: {} } })],
      ['children not reduced by one generation (spec 8)', entry(LEDGER, ['ledger.read'], { delegation: { children: { max_child_depth: 2, max_children: 5 } } })],
      ['a broadened max_children (spec 2.4: never broadened downstream)', entry(LEDGER, ['ledger.read'], { delegation: { children: { max_child_depth: 1, max_children: 6 } } })],
      ['a dropped max_children', entry(LEDGER, ['ledger.read'], { delegation: { children: { max_child_depth: 1 } } })],
    ])('spec 2.5, spec 7 not_strict_subset: refuses %s', (_, childEntry) => {
      const refusal = denied(() => subset(set(entry(REPORTS, ['reports.read']), childEntry)), 'not_strict_subset', 'invalid_request');
      expect(refusal.message).toContain('authorization_details[1]');
    });

    it('spec 2.5 rule 4, spec 7 delegation_not_permitted: an entry only a non-delegable parent entry would justify is refused', () => {
      denied(() => subset(set(entry(VENDORS, ['vendors.read']))), 'delegation_not_permitted', 'invalid_request');
    });

    it('spec 4.1 step 7, DESIGN 2.4: only parent entries that admit the child actor justify; the admitting one is recorded', () => {
      // Entry 0 (human actors) is first and would justify invoices.read too; for an ai_agent only entry 1 may.
      expect(subset(set(entry(INVOICES, ['invoices.read'])), AI_AGENT, parentMission({ authoritySet: SPLIT_SET }))).toEqual([1]);
      expect(subset(set(entry(INVOICES, ['invoices.read'])), HUMAN, parentMission({ authoritySet: SPLIT_SET }))).toEqual([0]);
      expect(subset(set(entry(INVOICES, ['invoices.write'])), HUMAN, parentMission({ authoritySet: SPLIT_SET }))).toEqual([0]);
    });

    it('spec 4.1 step 6/7, spec 7 child_actor_not_allowed: authority only a non-admitting parent entry grants is refused as child_actor_not_allowed, not delegation_not_permitted', () => {
      // Step 6 passes (entry 1 admits the ai_agent for this resource), but only entry 0, for human actors, grants invoices.write.
      const refusal = denied(
        () => subset(set(entry(INVOICES, ['invoices.read']), entry(INVOICES, ['invoices.write'])), AI_AGENT, parentMission({ authoritySet: SPLIT_SET })),
        'child_actor_not_allowed',
        'invalid_request',
      );
      expect(refusal.message).toContain('authorization_details[1]');
    });

    it('spec 4.1 step 7, spec 7 child_actor_not_allowed: children only a non-admitting parent entry could pass on are refused as child_actor_not_allowed', () => {
      const parent = parentMission({
        authoritySet: set(
          entry(LEDGER, ['ledger.read'], { delegation: { children: { max_child_depth: 2, allowed_child_actors: [{ sub_profile: 'human' }] } } }),
          entry(LEDGER, ['ledger.read'], { delegation: { children: { allowed_child_actors: [{ sub_profile: 'ai_agent' }] } } }),
        ),
      });
      expect(subset(set(entry(LEDGER, ['ledger.read'])), AI_AGENT, parent)).toEqual([1]);
      denied(() => subset(set(entry(LEDGER, ['ledger.read'], { delegation: { children: { max_child_depth: 1, allowed_child_actors: [{ sub_profile: 'human' }] } } })), AI_AGENT, parent), 'child_actor_not_allowed', 'invalid_request');
    });

    it('spec 4.1 step 7: authority no admitting entry grants and no other entry grants either stays not_strict_subset', () => {
      denied(() => subset(set(entry(INVOICES, ['invoices.delete'])), AI_AGENT, parentMission({ authoritySet: SPLIT_SET })), 'not_strict_subset', 'invalid_request');
    });
  });

  describe('step 8: requireFanOut', () => {
    const attachedChild = (parentEntryIndexes: number[], terminal = false): AttachedChild => ({ parentEntryIndexes, terminal });
    const withChildren = (...children: AttachedChild[]): Mission => parentMission({ children: new Map(children.map((child, n) => [childId(n), child])) });

    it('spec 2.4, spec 2.6 fanout: under max_children, records the count including this creation', () => {
      expect(requireFanOut(withChildren(), [0])).toEqual([{ parent_entry: 0, active_children: 1, max_children: 2 }]);
      expect(requireFanOut(withChildren(attachedChild([0])), [0])).toEqual([{ parent_entry: 0, active_children: 2, max_children: 2 }]);
    });

    it('spec 2.4 rule 4: an entry without max_children records the count and no max_children', () => {
      expect(requireFanOut(withChildren(attachedChild([2]), attachedChild([2])), [2])).toEqual([{ parent_entry: 2, active_children: 3 }]);
    });

    it('spec 8 max_children, spec 7 fanout_exceeded: refuses once max_children non-terminal children draw on the entry', () => {
      const refusal = denied(() => requireFanOut(withChildren(attachedChild([0]), attachedChild([0, 2])), [0]), 'fanout_exceeded', 'invalid_request');
      expect(refusal.message).toContain('authorization_details[0]');
      denied(() => requireFanOut(withChildren(attachedChild([1])), [1]), 'fanout_exceeded', 'invalid_request');
    });

    it('spec 2.4 rule 2, spec 8: terminal children do not count', () => {
      expect(requireFanOut(withChildren(attachedChild([0], true), attachedChild([0], true), attachedChild([0])), [0])).toEqual([{ parent_entry: 0, active_children: 2, max_children: 2 }]);
    });

    it('spec 2.4: counts are per parent entry (children drawing on another entry do not count)', () => {
      expect(requireFanOut(withChildren(attachedChild([2]), attachedChild([4]), attachedChild([4])), [0])).toEqual([{ parent_entry: 0, active_children: 1, max_children: 2 }]);
    });

    it('spec 2.6 fanout: one record per distinct justifying entry, in entry order; a child justified twice by an entry counts once', () => {
      expect(requireFanOut(withChildren(attachedChild([0, 0])), [2, 0, 0, 4])).toEqual([
        { parent_entry: 0, active_children: 2, max_children: 2 },
        { parent_entry: 2, active_children: 1 },
        { parent_entry: 4, active_children: 1, max_children: 5 },
      ]);
    });

    it('spec 2.4 rule 3, spec 7 fanout_exceeded: refuses the whole creation when any justifying entry is full', () => {
      denied(() => requireFanOut(withChildren(attachedChild([1])), [2, 1]), 'fanout_exceeded', 'invalid_request');
    });

    it('DESIGN 2.4 "Serialization": counts what attachChild counts on the parent stream (detached children freed)', () => {
      const created = missionDecider.decide(createCommand({ missionId: OTHER_MISSION_ID, authoritySet: PARENT_SET, authorityHash: authorityHash(ISSUER, PARENT_SET) }), initialMissionState)[0]!;
      const attached = (n: number, indexes: number[]): MissionEvent => ({
        type: 'ChildMissionAttached',
        data: { mission_id: OTHER_MISSION_ID, child_mission_id: childId(n), child_client_id: `child-agent-${n}`, parent_entry_indexes: indexes, occurred_at: NOW.toISOString(), actor: CLIENT, ...attachmentExtras(childId(n), n, NOW).data },
      });
      const detached = (n: number): MissionEvent => ({ type: 'ChildMissionDetached', data: { mission_id: OTHER_MISSION_ID, child_mission_id: childId(n), state: 'completed', occurred_at: NOW.toISOString() } });
      const full: MissionState = fold(missionDecider, [created, attached(1, [0]), attached(2, [0])]);
      if (!missionExists(full)) throw new Error('expected a mission');
      denied(() => requireFanOut(full, [0]), 'fanout_exceeded', 'invalid_request');
      const freed: MissionState = fold(missionDecider, [created, attached(1, [0]), attached(2, [0]), detached(1)]);
      if (!missionExists(freed)) throw new Error('expected a mission');
      expect(requireFanOut(freed, [0])).toEqual([{ parent_entry: 0, active_children: 2, max_children: 2 }]);
    });
  });

  describe('step 9: requireCreationPolicy', () => {
    const POLICY_SET = set(
      entry(INVOICES, ['invoices.read'], { delegation: { children: { child_creation_policy: 'allow' } } }),
      entry(PAYMENTS, ['payments.read'], { delegation: { children: { child_creation_policy: 'short-lived' } } }),
      entry(REPORTS, ['reports.read'], { delegation: { children: { child_creation_policy: 'deny' } } }),
      entry(VENDORS, ['vendors.read'], { delegation: { children: { child_creation_policy: 'not-configured' } } }),
      entry(LEDGER, ['ledger.read'], { delegation: { children: { max_grandchildren: 2 } } }),
      entry(ARCHIVE, ['archive.read'], { delegation: { children: {} } }),
      entry(CONTRACTS, ['contracts.read'], {
        delegation: { children: { max_children: 3, allowed_child_actors: [{ sub_profile: 'ai_agent' }], max_child_depth: 2, child_creation_policy: 'allow' } },
      }),
      entry(ARCHIVE, ['archive.list'], { delegation: { children: { child_creation_policy: 'shallow' } } }),
    );
    const REGISTRY: ReadonlyMap<string, ChildCreationPolicyRule> = new Map<string, ChildCreationPolicyRule>([
      ['short-lived', { effect: 'allow', max_child_lifetime_seconds: 3600 }],
      ['shallow', { effect: 'allow', max_child_depth: 1 }],
      ['deny', { effect: 'allow' }],
    ]);
    const context = (overrides: Partial<ChildCreationPolicyContext> = {}): ChildCreationPolicyContext => ({ now: T0, childExpiresAt: at('2026-11-22T09:30:00.000Z'), childDepth: 1, ...overrides });
    const policy = (justifiedBy: number[], ctx = context()) => requireCreationPolicy(parentMission({ authoritySet: POLICY_SET }), justifiedBy, REGISTRY, ctx);

    it('DESIGN 2.4, spec 2.6 approval basis: without child_creation_policy the basis is the parent authority', () => {
      expect(policy([5])).toBe('policy:parent_authority');
    });

    it('spec 4.1 step 9: allow approves; the basis names the policy', () => {
      expect(policy([0])).toBe('policy:allow');
      expect(policy([0, 0])).toBe('policy:allow');
      expect(policy([5, 0])).toBe('policy:allow');
    });

    it('spec 2.4 rule 1: an entry carrying every known control (all enforceable) passes', () => {
      expect(policy([6])).toBe('policy:allow');
      expect(policy([0, 6])).toBe('policy:allow');
    });

    it('spec 4.1 step 9: a registry policy whose conditions hold approves; several policies are all named, in entry order, once each', () => {
      expect(policy([1])).toBe('policy:short-lived');
      expect(policy([1, 0])).toBe('policy:allow policy:short-lived');
      expect(policy([7, 1, 0, 1])).toBe('policy:allow policy:short-lived policy:shallow');
    });

    it('spec 4.1 step 9, spec 7 policy_denied: a registry policy whose condition fails refuses with access_denied', () => {
      denied(() => policy([1], context({ childExpiresAt: at('2026-11-22T10:00:00.001Z') })), 'policy_denied', 'access_denied');
      denied(() => policy([7], context({ childDepth: 2 })), 'policy_denied', 'access_denied');
      expect(policy([7], context({ childDepth: 1 }))).toBe('policy:shallow');
    });

    it('spec 4.1 step 9, spec 7 policy_denied: the built-in deny refuses, even when the registry tries to shadow it', () => {
      denied(() => policy([2]), 'policy_denied', 'access_denied');
      denied(() => policy([0, 2]), 'policy_denied', 'access_denied');
    });

    it('spec 2.4 rule 1, DESIGN 2.4, spec 7 policy_denied: an unknown child_creation_policy cannot be enforced and refuses', () => {
      const refusal = denied(() => policy([3]), 'policy_denied', 'access_denied');
      expect(refusal.message).toContain('authorization_details[3]');
      expect(refusal.message).not.toContain('not-configured');
    });

    it('spec 2.4 rule 1, spec 4.4, spec 7 policy_denied: an unknown delegation.children member is a control this issuer cannot enforce', () => {
      const refusal = denied(() => policy([4]), 'policy_denied', 'access_denied');
      expect(refusal.message).toContain('authorization_details[4]');
      expect(refusal.message).not.toContain('max_grandchildren');
      denied(() => policy([0, 4]), 'policy_denied', 'access_denied');
    });

    it('spec 2.4 "each control applies per entry": controls and policies of parent entries that justify nothing are not evaluated', () => {
      expect(policy([0])).toBe('policy:allow'); // entries 2 (deny), 3 (unknown policy), 4 (unknown control) are not used
      expect(policy([5])).toBe('policy:parent_authority');
    });
  });

  describe('steps 3–9 in order (spec 4.1)', () => {
    it('spec 4.1: a valid creation passes every step and yields what the evidence records (justification, fan-out, basis)', () => {
      const parent = parentMission({ children: new Map([[childId(1), { parentEntryIndexes: [0], terminal: false }]]) });
      const root = missionRecord({ missionId: ROOT_ID });
      const child = set(entry(INVOICES, ['invoices.read'], { constraints: { tenant: 'acme' } }), entry(PAYMENTS, ['payments.read'], { constraints: { max_amount: { amount: '20.5', currency: 'EUR' } } }));
      const registry = new Map<string, ChildCreationPolicyRule>([['short-lived', { effect: 'allow', max_child_lifetime_seconds: 3600 }]]);

      requireParentMatch(parent.missionId, OTHER_MISSION_ID);
      requireLineageActive([{ ...parent, parent: parentLink({ id: ROOT_ID }) }, root], NOW);
      requireDelegableParent(parent);
      const admitting = requireChildActorAllowed(parent, child, actorOf(AI_AGENT, { iss: ISSUER, sub_profile: 'ai_agent' }), AI_AGENT, ISSUER);
      const justifiedBy = requireStrictSubset(parent, child, admitting);
      expect(justifiedBy).toEqual([0, 1]);
      expect(requireFanOut(parent, justifiedBy)).toEqual([
        { parent_entry: 0, active_children: 2, max_children: 2 },
        { parent_entry: 1, active_children: 1, max_children: 1 },
      ]);
      expect(requireCreationPolicy(parent, justifiedBy, registry, { now: NOW, childExpiresAt: at('2026-11-22T11:00:00.000Z'), childDepth: 1 })).toBe('policy:short-lived');
    });
  });
});

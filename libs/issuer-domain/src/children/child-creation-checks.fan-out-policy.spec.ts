import { fold } from '@mission/decider';
import { authorityHash } from '../authority-set/authority-hash.js';
import type { MissionEvent } from '../mission/mission.events.js';
import { missionDecider } from '../mission/mission.decider.js';
import { initialMissionState, missionExists, type AttachedChild, type Mission, type MissionState } from '../mission/mission.state.js';
import { at, attachmentExtras, CLIENT, createCommand, ISSUER, missionRecord, OTHER_MISSION_ID, parentLink, T0 } from '../testing/fixtures.js';
import {
  requireChildActorAllowed,
  requireCreationPolicy,
  requireDelegableParent,
  requireFanOut,
  requireLineageActive,
  requireParentMatch,
  requireStrictSubset,
} from './child-creation-checks.js';
import type { ChildCreationPolicyContext, ChildCreationPolicyRule } from './child-creation-policy.js';
import {
  actorOf,
  AI_AGENT,
  ARCHIVE,
  childId,
  CONTRACTS,
  denied,
  entry,
  INVOICES,
  LEDGER,
  NOW,
  PARENT_SET,
  parentMission,
  PAYMENTS,
  REPORTS,
  ROOT_ID,
  set,
  VENDORS,
} from '../testing/child-creation-fixtures.js';

/** Steps 8 and 9: fan-out and the creation policy, then the order of steps 3–9. */
describe('Child Mission creation checks (spec 4.1 steps 3–9, spec 7)', () => {
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

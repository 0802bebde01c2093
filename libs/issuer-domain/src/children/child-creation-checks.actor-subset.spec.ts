import type { AuthoritySet } from '../authority-set/authority-set.js';
import { ISSUER } from '../testing/fixtures.js';
import type { ChildActor, RegisteredActor } from './child-actor.js';
import { requireChildActorAllowed, requireStrictSubset } from './child-creation-checks.js';
import {
  actorOf,
  AI_AGENT,
  denied,
  entry,
  HUMAN,
  INVOICES,
  LEDGER,
  parentMission,
  PAYMENTS,
  REPORTS,
  set,
  SPLIT_SET,
  TOOL,
  VENDORS,
} from '../testing/child-creation-fixtures.js';

/** Steps 6 and 7: the child actor allowed by the entries it derives from, and the strict subset. */
describe('Child Mission creation checks (spec 4.1 steps 3–9, spec 7)', () => {
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
});

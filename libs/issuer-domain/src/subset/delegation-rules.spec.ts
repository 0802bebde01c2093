import { parseAuthorizationDetails } from '../authority-set/parse-authorization-details.js';
import { checkStrictSubset } from './check-strict-subset.js';

/** Parent and child entries differing only in `delegation` (undefined = no `delegation` member). */
function subset(parentDelegation: Record<string, unknown> | undefined, childDelegation: Record<string, unknown> | undefined) {
  const entry = (delegation: Record<string, unknown> | undefined) => ({
    type: 'mission_resource_access',
    resource: 'https://erp.example.com/invoices',
    actions: ['invoices.read'],
    ...(delegation ? { delegation } : {}),
  });
  const result = checkStrictSubset(parseAuthorizationDetails([entry(parentDelegation)]), parseAuthorizationDetails([entry(childDelegation)]));
  return result.ok ? 'accepted' : result.reason;
}

const accepts = (parent: Record<string, unknown> | undefined, child: Record<string, unknown> | undefined) => expect(subset(parent, child)).toBe('accepted');
const refuses = (parent: Record<string, unknown> | undefined, child: Record<string, unknown> | undefined) => expect(subset(parent, child)).toBe('not_strict_subset');

const agent = { sub_profile: 'ai_agent' };
const instance = { sub_profile: 'client_instance' };

describe('delegation rules (spec 2.4, spec 2.5 rule 3, spec 8, DESIGN 2.4)', () => {
  it('DESIGN 2.4: a child entry without delegation is a narrowing', () => {
    accepts({ max_depth: 2, children: { max_child_depth: 3 } }, undefined);
  });

  it('spec 2.5 rule 4 / spec 7: delegation absent in the parent ⇒ the entry is non-delegable', () => {
    expect(subset(undefined, undefined)).toBe('delegation_not_permitted');
    // The child also claims a delegation right the parent lacks: more than one obstacle.
    refuses(undefined, { max_depth: 0 });
  });

  describe('max_depth', () => {
    it('spec 2.5 rule 3: max_depth no greater is accepted', () => {
      accepts({ max_depth: 2, children: {} }, { max_depth: 2 });
      accepts({ max_depth: 2, children: {} }, { max_depth: 0 });
    });

    it('spec 2.5 rules 2, 3, 7 (issue 11 defect 2): a max_depth the parent entry does not state is refused — absent is not unbounded', () => {
      refuses({ children: {} }, { max_depth: 99 });
      refuses({ children: {} }, { max_depth: 1 });
      // Even 0: the child states what the parent does not (ADR 0022); it can omit max_depth instead.
      refuses({ children: { max_child_depth: 2 } }, { max_depth: 0, children: {} });
    });

    it('spec 2.5 rule 3: a greater or a dropped max_depth is broader delegation and refused', () => {
      refuses({ max_depth: 2, children: {} }, { max_depth: 3 });
      refuses({ max_depth: 2, children: { max_child_depth: 2 } }, { children: {} });
    });
  });

  describe('allowed_delegates', () => {
    it('spec 2.5 rule 3: a subset of the matchers (deep-equal members) is accepted', () => {
      accepts({ allowed_delegates: [agent, instance], children: {} }, { allowed_delegates: [instance] });
      accepts({ allowed_delegates: [agent], children: {} }, { allowed_delegates: [] });
    });

    it('spec 2.5 rules 2, 3, 7 (issue 11): allowed_delegates the parent entry does not state is refused — absent is not "anyone"', () => {
      refuses({ children: {} }, { allowed_delegates: [agent] });
      refuses({ max_depth: 2, children: {} }, { max_depth: 1, allowed_delegates: [agent] });
      refuses({ children: {} }, { allowed_delegates: [] });
    });

    it('spec 2.5 rule 3: a wider or dropped allowed_delegates is refused', () => {
      refuses({ allowed_delegates: [agent], children: {} }, { allowed_delegates: [agent, instance] });
      refuses({ allowed_delegates: [agent], children: {} }, { allowed_delegates: [{ sub_profile: 'ai_agent', iss: 'https://x.example' }] });
      refuses({ allowed_delegates: [agent], children: { max_child_depth: 2 } }, { children: {} });
    });
  });

  describe('children', () => {
    it('spec 2.4: children with max_child_depth decremented by one is accepted (default 1 when absent)', () => {
      accepts({ children: { max_child_depth: 3 } }, { children: { max_child_depth: 2 } });
      accepts({ children: { max_child_depth: 2 } }, { children: {} });
      accepts({ children: { max_child_depth: 2 } }, { children: { max_child_depth: 1 } });
    });

    it('spec 2.4 / spec 8: children not decremented is refused', () => {
      refuses({ children: { max_child_depth: 3 } }, { children: { max_child_depth: 3 } });
      refuses({ children: { max_child_depth: 3 } }, { children: { max_child_depth: 4 } });
      refuses({ children: { max_child_depth: 3 } }, { children: {} });
    });

    it('spec 2.4 / spec 8: at the depth limit (max_child_depth 1, or absent) the child entry carries no children', () => {
      accepts({ max_depth: 1, children: { max_child_depth: 1 } }, { max_depth: 1 });
      refuses({ children: { max_child_depth: 1 } }, { children: {} });
      refuses({ children: {} }, { children: { max_child_depth: 1 } });
    });

    it('spec 2.5 rule 2: children on the child when the parent entry has none is a delegation right absent from the parent', () => {
      refuses({ max_depth: 1 }, { children: {} });
    });

    it('spec 2.4: max_children no greater is accepted; greater or dropped is refused', () => {
      accepts({ children: { max_child_depth: 2, max_children: 3 } }, { children: { max_children: 3 } });
      accepts({ children: { max_child_depth: 2, max_children: 3 } }, { children: { max_children: 1 } });
      accepts({ children: { max_child_depth: 2 } }, { children: { max_children: 1 } });
      refuses({ children: { max_child_depth: 2, max_children: 3 } }, { children: { max_children: 4 } });
      refuses({ children: { max_child_depth: 2, max_children: 3 } }, { children: {} });
    });

    it('spec 2.4: allowed_child_actors a subset is accepted; wider or dropped is refused', () => {
      accepts({ children: { max_child_depth: 2, allowed_child_actors: [agent, instance] } }, { children: { allowed_child_actors: [agent] } });
      accepts({ children: { max_child_depth: 2 } }, { children: { allowed_child_actors: [agent] } });
      refuses({ children: { max_child_depth: 2, allowed_child_actors: [agent] } }, { children: { allowed_child_actors: [agent, instance] } });
      refuses({ children: { max_child_depth: 2, allowed_child_actors: [agent] } }, { children: {} });
    });

    it('DESIGN 2.4: the same child_creation_policy is accepted; another, a dropped or an added one is refused', () => {
      accepts({ children: { max_child_depth: 2, child_creation_policy: 'allow' } }, { children: { child_creation_policy: 'allow' } });
      refuses({ children: { max_child_depth: 2, child_creation_policy: 'allow' } }, { children: { child_creation_policy: 'deny' } });
      refuses({ children: { max_child_depth: 2, child_creation_policy: 'allow' } }, { children: {} });
      refuses({ children: { max_child_depth: 2 } }, { children: { child_creation_policy: 'deny' } });
    });

    it('spec 2.4: children members not understood are carried unchanged (deep-equal), else refused', () => {
      accepts({ children: { max_child_depth: 2, x_budget: { per_day: 5 } } }, { children: { x_budget: { per_day: 5 } } });
      refuses({ children: { max_child_depth: 2, x_budget: { per_day: 5 } } }, { children: { x_budget: { per_day: 4 } } });
      refuses({ children: { max_child_depth: 2, x_budget: { per_day: 5 } } }, { children: {} });
      refuses({ children: { max_child_depth: 2 } }, { children: { x_budget: { per_day: 5 } } });
    });
  });

  it('spec 9.4: delegation members not understood must be carried unchanged when the child keeps delegation', () => {
    accepts({ children: {}, x_audit: 'strict' }, { x_audit: 'strict' });
    refuses({ max_depth: 1, children: {}, x_audit: 'strict' }, { max_depth: 0 });
    refuses({ children: {} }, { x_audit: 'strict' });
  });
});

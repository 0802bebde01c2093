import { at, T0 } from '../testing/fixtures.js';
import { BUILT_IN_CHILD_CREATION_POLICIES, evaluateChildCreationPolicy, type ChildCreationPolicyContext, type ChildCreationPolicyRule } from './child-creation-policy.js';

const HOUR = 3600;
const context = (overrides: Partial<ChildCreationPolicyContext> = {}): ChildCreationPolicyContext => ({
  now: T0,
  childExpiresAt: at('2026-11-22T10:00:00.000Z'), // one hour after T0
  childDepth: 1,
  ...overrides,
});
const afterT0 = (ms: number): Date => new Date(T0.getTime() + ms);

const REGISTRY: ReadonlyMap<string, ChildCreationPolicyRule> = new Map<string, ChildCreationPolicyRule>([
  ['short-lived', { effect: 'allow', max_child_lifetime_seconds: HOUR }],
  ['shallow', { effect: 'allow', max_child_depth: 2 }],
  ['short-and-shallow', { effect: 'allow', max_child_lifetime_seconds: HOUR, max_child_depth: 1 }],
  ['never', { effect: 'deny' }],
  ['never-even-if-short', { effect: 'deny', max_child_lifetime_seconds: 10 * HOUR }],
  // Attempts to shadow the built-ins (DESIGN 2.4: configuration cannot).
  ['deny', { effect: 'allow' }],
  ['allow', { effect: 'deny' }],
]);
const EMPTY: ReadonlyMap<string, ChildCreationPolicyRule> = new Map();

describe('child_creation_policy evaluation (spec 2.4 child_creation_policy, spec 4.1 step 9, DESIGN 2.4)', () => {
  describe('built-ins', () => {
    it('spec 4.1 step 9: allow and deny always exist', () => {
      expect(BUILT_IN_CHILD_CREATION_POLICIES).toEqual({ allow: { effect: 'allow' }, deny: { effect: 'deny' } });
      expect(evaluateChildCreationPolicy(EMPTY, 'allow', context())).toEqual({ outcome: 'allow' });
      expect(evaluateChildCreationPolicy(EMPTY, 'deny', context())).toMatchObject({ outcome: 'deny' });
    });

    it('spec 4.1 step 9, spec 7 policy_denied: built-in allow cannot be shadowed by a registry entry that denies', () => {
      expect(evaluateChildCreationPolicy(REGISTRY, 'allow', context())).toEqual({ outcome: 'allow' });
    });

    it('spec 4.1 step 9, spec 7 policy_denied: built-in deny cannot be shadowed by a registry entry that allows', () => {
      expect(evaluateChildCreationPolicy(REGISTRY, 'deny', context())).toEqual({ outcome: 'deny', detail: 'child_creation_policy deny denies child creation' });
    });

    it('spec 4.1 step 9: built-in allow has no lifetime or depth condition', () => {
      expect(evaluateChildCreationPolicy(EMPTY, 'allow', context({ childExpiresAt: afterT0(365 * 24 * HOUR * 1000), childDepth: 50 }))).toEqual({ outcome: 'allow' });
    });
  });

  describe('unknown references (spec 2.4 rule 1: cannot be enforced → refuse)', () => {
    it.each(['unknown-policy', 'Allow', 'ALLOW', 'allow ', 'constructor', 'toString', '__proto__', 'hasOwnProperty', ''])(
      'spec 2.4 rule 1: %j is unknown with an empty registry',
      (reference) => {
        expect(evaluateChildCreationPolicy(EMPTY, reference, context())).toEqual({ outcome: 'unknown' });
      },
    );

    it('spec 2.4 rule 1: a reference is known only when the registry has it', () => {
      expect(evaluateChildCreationPolicy(EMPTY, 'short-lived', context())).toEqual({ outcome: 'unknown' });
      expect(evaluateChildCreationPolicy(REGISTRY, 'short-lived', context())).toEqual({ outcome: 'allow' });
    });
  });

  describe('registry policies', () => {
    it('spec 4.1 step 9: a registry deny rule denies whatever the conditions', () => {
      expect(evaluateChildCreationPolicy(REGISTRY, 'never', context())).toEqual({ outcome: 'deny', detail: 'child_creation_policy never denies child creation' });
      expect(evaluateChildCreationPolicy(REGISTRY, 'never-even-if-short', context())).toMatchObject({ outcome: 'deny' });
    });

    it.each([
      ['well under the limit', 60 * 1000],
      ['one millisecond under the limit', HOUR * 1000 - 1],
      ['exactly at the limit', HOUR * 1000],
    ])('spec 4.1 step 9: max_child_lifetime_seconds allows a child lifetime %s', (_, lifetimeMs) => {
      expect(evaluateChildCreationPolicy(REGISTRY, 'short-lived', context({ childExpiresAt: afterT0(lifetimeMs) }))).toEqual({ outcome: 'allow' });
    });

    it.each([
      ['one millisecond over the limit', HOUR * 1000 + 1],
      ['one second over the limit', (HOUR + 1) * 1000],
      ['far over the limit', 8 * HOUR * 1000],
    ])('spec 4.1 step 9, spec 7 policy_denied: max_child_lifetime_seconds denies a child lifetime %s', (_, lifetimeMs) => {
      expect(evaluateChildCreationPolicy(REGISTRY, 'short-lived', context({ childExpiresAt: afterT0(lifetimeMs) }))).toEqual({
        outcome: 'deny',
        detail: 'child_creation_policy short-lived allows a child lifetime of at most 3600 seconds',
      });
    });

    it('spec 4.1 step 9: lifetime is measured from now (the creation time), not from the parent creation', () => {
      const later = at('2026-11-22T15:00:00.000Z');
      const expires = at('2026-11-22T16:00:00.000Z');
      expect(evaluateChildCreationPolicy(REGISTRY, 'short-lived', context({ now: later, childExpiresAt: expires }))).toEqual({ outcome: 'allow' });
      expect(evaluateChildCreationPolicy(REGISTRY, 'short-lived', context({ now: afterT0(-1000), childExpiresAt: afterT0(HOUR * 1000) }))).toMatchObject({ outcome: 'deny' });
    });

    it.each([1, 2])('spec 2.3 depth, spec 4.1 step 9: max_child_depth 2 allows a child at depth %i', (depth) => {
      expect(evaluateChildCreationPolicy(REGISTRY, 'shallow', context({ childDepth: depth }))).toEqual({ outcome: 'allow' });
    });

    it.each([3, 4, 10])('spec 2.3 depth, spec 7 policy_denied: max_child_depth 2 denies a child at depth %i', (depth) => {
      expect(evaluateChildCreationPolicy(REGISTRY, 'shallow', context({ childDepth: depth }))).toEqual({
        outcome: 'deny',
        detail: 'child_creation_policy shallow allows children up to depth 2',
      });
    });

    it('spec 4.1 step 9: a rule with both conditions allows only when both hold', () => {
      expect(evaluateChildCreationPolicy(REGISTRY, 'short-and-shallow', context({ childExpiresAt: afterT0(HOUR * 1000), childDepth: 1 }))).toEqual({ outcome: 'allow' });
      expect(evaluateChildCreationPolicy(REGISTRY, 'short-and-shallow', context({ childExpiresAt: afterT0(HOUR * 1000 + 1), childDepth: 1 }))).toMatchObject({ outcome: 'deny' });
      expect(evaluateChildCreationPolicy(REGISTRY, 'short-and-shallow', context({ childExpiresAt: afterT0(HOUR * 1000), childDepth: 2 }))).toMatchObject({ outcome: 'deny' });
    });

    it('spec 4.1 step 9: evaluation is pure (same inputs, same outcome; the registry is not changed)', () => {
      const registry = new Map(REGISTRY);
      const first = evaluateChildCreationPolicy(registry, 'short-lived', context());
      const second = evaluateChildCreationPolicy(registry, 'short-lived', context());
      expect(second).toEqual(first);
      expect([...registry.keys()]).toEqual([...REGISTRY.keys()]);
    });
  });
});

/**
 * `child_creation_policy` (spec 2.4): a reference to a named policy in the issuer's configuration,
 * evaluated before each creation (spec 4.1 step 9). `allow` and `deny` always exist; deployments add
 * conditional ones. A reference the issuer does not know cannot be enforced, so creation is refused
 * (spec 2.4 rule 1, DESIGN 2.4).
 */
export interface ChildCreationPolicyRule {
  readonly effect: 'allow' | 'deny';
  /** Refuse unless the child's effective lifetime (`expires_at` − now) is at most this. */
  readonly max_child_lifetime_seconds?: number;
  /** Refuse unless the child's `parent.depth` is at most this. */
  readonly max_child_depth?: number;
}

export const BUILT_IN_CHILD_CREATION_POLICIES: Readonly<Record<'allow' | 'deny', ChildCreationPolicyRule>> = {
  allow: { effect: 'allow' },
  deny: { effect: 'deny' },
};

export interface ChildCreationPolicyContext {
  readonly now: Date;
  readonly childExpiresAt: Date;
  /** The child's `parent.depth`. */
  readonly childDepth: number;
}

export type ChildCreationPolicyOutcome =
  | { readonly outcome: 'allow' }
  | { readonly outcome: 'deny'; readonly detail: string }
  | { readonly outcome: 'unknown' };

/** Pure evaluation of one reference against the registry (built-ins first; configuration cannot shadow them). */
export function evaluateChildCreationPolicy(
  registry: ReadonlyMap<string, ChildCreationPolicyRule>,
  reference: string,
  context: ChildCreationPolicyContext,
): ChildCreationPolicyOutcome {
  const builtIn = BUILT_IN_CHILD_CREATION_POLICIES as Readonly<Record<string, ChildCreationPolicyRule>>;
  const rule = Object.hasOwn(builtIn, reference) ? builtIn[reference] : registry.get(reference);
  if (rule === undefined) return { outcome: 'unknown' };
  if (rule.effect === 'deny') return { outcome: 'deny', detail: `child_creation_policy ${reference} denies child creation` };
  const lifetimeSeconds = (context.childExpiresAt.getTime() - context.now.getTime()) / 1000;
  if (rule.max_child_lifetime_seconds !== undefined && lifetimeSeconds > rule.max_child_lifetime_seconds) {
    return { outcome: 'deny', detail: `child_creation_policy ${reference} allows a child lifetime of at most ${rule.max_child_lifetime_seconds} seconds` };
  }
  if (rule.max_child_depth !== undefined && context.childDepth > rule.max_child_depth) {
    return { outcome: 'deny', detail: `child_creation_policy ${reference} allows children up to depth ${rule.max_child_depth}` };
  }
  return { outcome: 'allow' };
}

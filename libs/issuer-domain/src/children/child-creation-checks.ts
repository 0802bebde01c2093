import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { MissionIntent } from '../mission-intent/mission-intent.js';
import { effectiveState, missionExists, type Mission, type MissionState } from '../mission/mission.state.js';
import { checkStrictSubset } from '../subset/check-strict-subset.js';
import { childActorAllowed, claimedProfilesBacked, type ChildActor, type RegisteredActor } from './child-actor.js';
import { ChildCreationDeniedError } from './child-creation-denied.error.js';
import { evaluateChildCreationPolicy, type ChildCreationPolicyContext, type ChildCreationPolicyRule } from './child-creation-policy.js';
import type { FanOutRecord } from './child-evidence.js';
import { activeChildCount } from './fan-out.js';

/*
 * The pure checks of spec 4.1 steps 3–9, one function per step, each refusing with its spec 7
 * denial reason. The application runs them in step order over state it read from the parent's
 * stream; step 10 (AttachChild on the parent's stream at that revision) re-decides 4 and 8 atomically.
 */

/** Known `delegation.children` members (spec 2.4); any other is a control this issuer cannot enforce. */
const ENFORCEABLE_CHILDREN_CONTROLS = new Set(['max_children', 'allowed_child_actors', 'max_child_depth', 'child_creation_policy']);

// Spec 4.1 step 3, spec 5 rule 2: `parent` is only a cross-check of the mission the grant resolved to.
export function requireParentMatch(resolvedParentId: string, claimedParent: string): void {
  if (resolvedParentId !== claimedParent) throw new ChildCreationDeniedError('parent_mismatch', 'parent does not match the mission of parent_token');
}

/**
 * Spec 4.1 step 4, spec 3.2 rule 5, DESIGN 2.4: the parent and every ancestor must be exactly
 * `active` now (expiry first). `lineage` is `[parent, grandparent, …, root]`, read from their streams.
 */
export function requireLineageActive(lineage: readonly MissionState[], now: Date): void {
  for (const [generation, mission] of lineage.entries()) {
    const state = missionExists(mission) ? effectiveState(mission, now) : 'revoked';
    if (state !== 'active') {
      const who = generation === 0 ? 'the parent mission' : 'an ancestor of the parent mission';
      throw new ChildCreationDeniedError('parent_not_active', `${who} is ${state}`);
    }
  }
}

// Spec 4.1 step 5, spec 1 item 3: the parent grant permits creation only where some parent entry's delegation carries `children`.
export function requireDelegableParent(parent: Mission): void {
  if (!parent.authoritySet.some((entry) => entry.delegation?.children !== undefined)) {
    throw new ChildCreationDeniedError('delegation_not_permitted', 'no entry of the parent mission carries delegation.children');
  }
}

/**
 * Spec 4.1 step 6, spec 2.2, 2.4 `allowed_child_actors`, DESIGN 2.2: the child actor is a registered
 * client of this issuer, claims only profiles its registration backs, and is admitted by the
 * `allowed_child_actors` of the parent entries that could apply (same type and resource, carrying
 * `children`). Returns the indexes of the parent entries that admit it (step 7 uses only those).
 */
export function requireChildActorAllowed(parent: Mission, child: AuthoritySet, actor: ChildActor, registered: RegisteredActor | undefined, issuer: string): ReadonlySet<number> {
  const refuse = (detail: string): never => {
    throw new ChildCreationDeniedError('child_actor_not_allowed', detail);
  };
  if (registered === undefined) refuse('child_actor.sub is not a client registered for child missions at this issuer');
  if (actor.iss !== undefined && actor.iss !== issuer) refuse('child_actor.iss must be this issuer (cross-domain child delegation is not supported, spec 1 item 9)');
  if (!claimedProfilesBacked(actor, registered!)) refuse('child_actor.sub_profile claims a profile the child actor is not registered with');
  const admitting = new Set<number>();
  for (const [index, entry] of parent.authoritySet.entries()) {
    const children = entry.delegation?.children;
    if (children !== undefined && childActorAllowed(children.allowed_child_actors, registered!)) admitting.add(index);
  }
  for (const [childIndex, childEntry] of child.entries()) {
    const applicable = parent.authoritySet.flatMap((entry, index) =>
      entry.delegation?.children !== undefined && entry.type === childEntry.type && entry.resource === childEntry.resource ? [index] : [],
    );
    if (applicable.length > 0 && !applicable.some((index) => admitting.has(index))) {
      refuse(`authorization_details[${childIndex}]: the child actor does not satisfy allowed_child_actors of the applicable parent entry`);
    }
  }
  return admitting;
}

/**
 * Spec 1 item 4, 2.5 rules 5 and 8, 5 rule 3 (part of step 6): the child actor is a principal other than
 * the parent's client and every ancestor's — otherwise the parent would hold the child's tokens and the
 * lineage would be an authority laundering loop. `lineage` is `[parent, grandparent, …, root]`.
 */
export function requireDistinctChildActor(lineage: readonly MissionState[], actor: ChildActor): void {
  for (const [generation, mission] of lineage.entries()) {
    if (missionExists(mission) && mission.clientId === actor.sub) {
      const who = generation === 0 ? 'the parent mission' : 'an ancestor of the parent mission';
      throw new ChildCreationDeniedError('child_actor_not_allowed', `child_actor.sub is the client of ${who}; a child actor must be another client (the parent never holds child tokens)`);
    }
  }
}

/**
 * Spec 4.1 step 7, spec 2.5, DESIGN 2.4: entry-wise strict subset over the parent entries that admit
 * the child actor; returns, per child entry, the justifying parent entry.
 */
export function requireStrictSubset(parent: Mission, child: AuthoritySet, admitting: ReadonlySet<number>): readonly number[] {
  // Entries that do not admit this actor cannot justify anything for it: they are viewed without `children`.
  const view: AuthoritySet = parent.authoritySet.map((entry, index) => {
    if (admitting.has(index) || entry.delegation?.children === undefined) return entry;
    const delegation = { ...entry.delegation };
    delete delegation.children;
    return { ...entry, delegation };
  });
  const result = checkStrictSubset(view, child);
  if (!result.ok) {
    // Only a parent entry that does not admit this actor would justify the child entry: the actor is
    // the obstacle (spec 7 child_actor_not_allowed), not missing `children` or a broader entry.
    if (checkStrictSubset(parent.authoritySet, [child[result.childIndex]!]).ok) {
      throw new ChildCreationDeniedError(
        'child_actor_not_allowed',
        `authorization_details[${result.childIndex}]: the child actor does not satisfy allowed_child_actors of the parent entry that would justify it`,
      );
    }
    throw new ChildCreationDeniedError(result.reason, result.detail);
  }
  return result.justifications.map((justification) => justification.parentIndex);
}

/**
 * Spec 2.5 rule 2 (part of step 7), issue 11 item 9: the child's Mission Intent names only resources the
 * parent's intent names — a child never widens what its mission is about, even in descriptive fields.
 */
export function requireIntentWithinParent(parent: Mission, intent: MissionIntent): void {
  const index = intent.resources.findIndex((resource) => !parent.intent.resources.includes(resource));
  if (index >= 0) throw new ChildCreationDeniedError('not_strict_subset', `mission_intent.intent.resources[${index}] is not a resource of the parent mission's intent`);
}

/**
 * Spec 4.1 step 8, spec 2.4 rules 2–3, spec 8: one more non-terminal child per justifying entry must
 * stay within its `max_children`. Decided again by AttachChild at the commit (the serialization point).
 */
export function requireFanOut(parent: Mission, justifiedBy: readonly number[]): FanOutRecord[] {
  const records: FanOutRecord[] = [];
  for (const index of [...new Set(justifiedBy)].sort((a, b) => a - b)) {
    const max = parent.authoritySet[index]!.delegation?.children?.max_children;
    const active = activeChildCount(parent, index);
    if (max !== undefined && active + 1 > max) {
      throw new ChildCreationDeniedError('fanout_exceeded', `authorization_details[${index}] of the parent mission already has max_children (${max}) non-terminal children`);
    }
    records.push({ parent_entry: index, active_children: active + 1, ...(max !== undefined ? { max_children: max } : {}) });
  }
  return records;
}

/**
 * Spec 4.1 step 9, spec 2.4 rule 1 and `child_creation_policy`: every justifying entry's controls must
 * be enforceable here and its policy must allow the creation. Returns the approval basis for evidence
 * (policy approval is the default, DESIGN 2.4).
 */
export function requireCreationPolicy(
  parent: Mission,
  justifiedBy: readonly number[],
  registry: ReadonlyMap<string, ChildCreationPolicyRule>,
  context: ChildCreationPolicyContext,
): string {
  const basis: string[] = [];
  for (const index of [...new Set(justifiedBy)].sort((a, b) => a - b)) {
    const children = parent.authoritySet[index]!.delegation!.children!;
    const unknown = Object.keys(children).find((member) => !ENFORCEABLE_CHILDREN_CONTROLS.has(member));
    if (unknown !== undefined) {
      throw new ChildCreationDeniedError('policy_denied', `authorization_details[${index}] of the parent mission carries a delegation.children control this issuer cannot enforce`);
    }
    const reference = children.child_creation_policy;
    if (reference === undefined) continue;
    const outcome = evaluateChildCreationPolicy(registry, reference, context);
    if (outcome.outcome === 'unknown') {
      throw new ChildCreationDeniedError('policy_denied', `authorization_details[${index}] of the parent mission names a child_creation_policy this issuer does not know`);
    }
    if (outcome.outcome === 'deny') throw new ChildCreationDeniedError('policy_denied', outcome.detail);
    basis.push(`policy:${reference}`);
  }
  return basis.length > 0 ? [...new Set(basis)].join(' ') : 'policy:parent_authority';
}

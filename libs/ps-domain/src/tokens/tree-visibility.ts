import type { JsonObject } from '../shared/json.js';
import { tokenResidual } from './token-residual.js';
import type { TrackedToken, TrackedTokensState } from './tracked-token.state.js';

/**
 * Whether the caller may know an agent identifier (spec 4.3 rule 3): the application answers it from the
 * deployment's tenancy (the agents registered to the mission's tenant, ADR 0019).
 */
export type KnownAgent = (agent: string) => boolean;

/**
 * Spec 4.3 rule 3, 2.5 (ADR 0019): the Tracked Auth Tokens a caller may know about — the tokens of the
 * tree nodes it may see. Walked in issuance order (a node's parent always got its token first):
 * - the root (the Owning Agent) is visible;
 * - a `sub_agent` under a visible node is visible: its agent provider vouched that it acts for that
 *   parent, and the parent asked for its token (DESIGN 3.3);
 * - a `call_chain` node is visible only when its parent is visible **and** the caller may know its
 *   agent (`knownAgent`): a resource calling onwards as another tenant's agent is another tenant's
 *   activity, so its node, its token identifiers and everything beneath it are left out.
 * A node that is left out is never shown, not even as a placeholder: its existence would itself be
 * another tenant's activity.
 */
export function visibleTrackedTokens(rootAgent: string, state: TrackedTokensState, knownAgent: KnownAgent): TrackedTokensState {
  const visibleAgents = new Set([rootAgent]);
  const tokens = new Map<string, TrackedToken>();
  for (const [key, token] of state.tokens) {
    const visible =
      token.relationship === 'root'
        ? token.agent === rootAgent
        : token.parentAgent !== undefined && visibleAgents.has(token.parentAgent) && (token.relationship === 'sub_agent' || knownAgent(token.agent));
    if (!visible) continue;
    visibleAgents.add(token.agent);
    tokens.set(key, token);
  }
  return { ...state, tokens };
}

/**
 * Spec 2.5 `token_residual` for a caller who may know only `visible` of all the mission's tokens
 * (`all`): `tracked`, the revocation counts and `residual_until` count the visible tokens only; `complete`
 * is `true` only when it holds for **every** token (a hidden unconfirmed token keeps it `false` — the
 * same answer as for untracked access, so it discloses nothing the caller may not know).
 */
export function tokenResidualForCaller(all: TrackedTokensState, visible: TrackedTokensState, now: Date, options: { readonly untrackedAccessModes: boolean }): JsonObject {
  const shown = tokenResidual(visible, now, options);
  return { ...shown, complete: shown['complete'] === true && tokenResidual(all, now, options)['complete'] === true };
}

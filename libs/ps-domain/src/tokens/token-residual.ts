import type { JsonObject } from '../shared/json.js';
import { unconfirmedLiveTokens, type TrackedTokensState } from './tracked-token.state.js';

/**
 * Spec 2.5 `token_residual` at `now`:
 * - `tracked`: handed-out Tracked Auth Tokens (withheld ones never left the PS);
 * - `revocation_attempted` / `revocation_confirmed`: tokens with at least one attempt / a `200`;
 * - `residual_until`: the latest `exp` among unconfirmed tokens not yet expired (natural expiry closes
 *   a token's residual, spec 4.4 rule 3); omitted when none is left. When such a token's expiry is
 *   unknown (spec 4.4 rule 5) the residual is unbounded: `residual_until` is omitted and
 *   `residual_unbounded: true` says so;
 * - `complete`: only when every token is confirmed or expired **and** the deployment declares no
 *   untracked access mode (spec 4.4 rule 6) — `residual_until` is then never a complete bound either.
 */
export function tokenResidual(state: TrackedTokensState, now: Date, options: { readonly untrackedAccessModes: boolean }): JsonObject {
  const released = [...state.tokens.values()].filter((token) => token.released);
  const open = unconfirmedLiveTokens(state, now);
  const unbounded = open.some((token) => token.exp === undefined);
  const latest = unbounded ? undefined : open.reduce<Date | undefined>((max, token) => (max === undefined || token.exp! > max ? token.exp! : max), undefined);
  return {
    tracked: released.length,
    revocation_attempted: released.filter((token) => token.attempts > 0).length,
    revocation_confirmed: released.filter((token) => token.confirmedAt !== undefined).length,
    ...(latest !== undefined ? { residual_until: latest.toISOString() } : {}),
    ...(unbounded ? { residual_unbounded: true } : {}),
    complete: !options.untrackedAccessModes && open.length === 0,
  };
}

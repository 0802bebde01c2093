import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { unconfirmedLiveTokens, type TrackedTokensState } from './tracked-token.state.js';

/**
 * Spec 2.8 "token-impact summary" of a termination, carried by MissionTerminated as `token_impact`
 * (ADR 0013). It states what the termination put under revocation, from the Tracked Auth Tokens recorded
 * on `pstokens-<s256>` when the termination was decided. It is not a revocation result: attempts and
 * results are the token revocation events on `pstokens-<s256>`, and `token_residual` (spec 2.5) reports
 * them at response time.
 */
export interface TokenImpactData {
  /** Handed-out Tracked Auth Tokens of the mission (withheld ones never left the PS). */
  readonly tracked: number;
  /** Of those, not confirmed revoked and not expired at the termination: the tokens revocation will try (spec 4.4 rule 1). */
  readonly to_revoke: number;
  /** The latest `exp` among `to_revoke`; omitted when there is none or one expiry is unknown. */
  readonly residual_until?: string;
  /** Spec 4.4 rule 5: one of `to_revoke` has no known expiry. */
  readonly residual_unbounded?: true;
  /**
   * The `sequence` of the last `pstokens-<s256>` event the summary includes (0: none). A token recorded
   * after it, in the instant before the termination committed, is still revoked; it shows on `pstokens`.
   */
  readonly tokens_sequence: number;
}

/** Spec 2.8: the token-impact summary of a termination decided at `now`, from the mission's tracked tokens. */
export function tokenImpactSummary(state: TrackedTokensState, now: Date): TokenImpactData {
  const tracked = [...state.tokens.values()].filter((token) => token.released).length;
  const open = unconfirmedLiveTokens(state, now);
  const unbounded = open.some((token) => token.exp === undefined);
  const latest = unbounded ? undefined : open.reduce<Date | undefined>((max, token) => (max === undefined || token.exp! > max ? token.exp! : max), undefined);
  return {
    tracked,
    to_revoke: open.length,
    ...(latest !== undefined ? { residual_until: latest.toISOString() } : {}),
    ...(unbounded ? { residual_unbounded: true as const } : {}),
    tokens_sequence: state.sequence,
  };
}

/** Guards a decider against token records of another mission or of the wrong shape (a bug at the caller). */
export function assertTrackedTokensOf(state: TrackedTokensState, missionS256: string): void {
  if (typeof state !== 'object' || state === null || !(state.tokens instanceof Map) || !Number.isSafeInteger(state.sequence) || state.sequence < 0) {
    throw new InvalidCommandError('trackedTokens must be the folded state of pstokens-<s256>');
  }
  if (state.missionS256 !== undefined && state.missionS256 !== missionS256) throw new InvalidCommandError('trackedTokens are the tokens of another mission');
}

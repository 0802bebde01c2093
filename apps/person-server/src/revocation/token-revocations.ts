import { randomUUID } from 'node:crypto';
import type { CommandContext, RequestTrace } from '@mission/es-kit';
import {
  isExpired,
  revocationCandidates,
  tokenResidual,
  tokenResidualForCaller,
  type JsonObject,
  type RevocationResult,
  type TokenIdentity,
  type TokenRevocationAttemptedData,
  type TrackedTokensState,
} from '@mission/ps-domain';
import type { RevocationSettings } from '../config/person-server-config.js';
import type { Clock } from '../time/clock.js';
import type { TokenLedger } from '../store/token-ledger.js';
import type { RevocationClient } from './revocation-client.js';
import type { ResourceRateLimiter } from './resource-rate-limiter.js';

/** Tokens per `StopRevocations` command. */
const BATCH = 200;

export interface RevocationRoundResult {
  /** Tokens still to be revoked after this round (unconfirmed, unexpired, not given up). */
  readonly remaining: number;
}

/**
 * One revocation round for a terminated mission (spec 4.4): every unexpired, unconfirmed Tracked Auth
 * Token gets an attempt; each attempt is recorded before its call and its result after it (spec 6) on
 * `pstokens-<s256>`. Tokens that expired meanwhile are closed as `expired` (natural expiry
 * closes the residual); after the last allowed round the rest is closed as `attempts_exhausted`.
 * Idempotent: a round re-run after a crash re-reads the ledger, skips confirmed tokens, and a repeated
 * `200` is never recorded twice (the decider drops it).
 */
export class TokenRevocations {
  constructor(
    private readonly ledger: TokenLedger,
    private readonly client: RevocationClient,
    private readonly limiter: ResourceRateLimiter,
    private readonly settings: RevocationSettings,
    private readonly clock: Clock,
  ) {}

  async round(missionS256: string, options: { readonly lastRound: boolean; readonly signal?: AbortSignal; readonly trace?: RequestTrace | undefined }): Promise<RevocationRoundResult> {
    const context = this.context(missionS256, options.trace);
    let state = await this.ledger.state(missionS256);
    await this.closeExpired(missionS256, state, context);
    const candidates = revocationCandidates(state, this.clock.now());
    // `concurrency` workers, one token at a time: attempt recorded → call → result recorded. No batch barrier:
    // calls flow at the resource's rate, and the ledger's group commit merges concurrent records into few appends.
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let index = next++; index < candidates.length; index = next++) {
        if (options.signal?.aborted === true) return;
        const { iss, jti } = candidates[index]!;
        const { newEvents } = await this.ledger.execute(missionS256, { type: 'RecordRevocationAttempts', tokens: [{ iss, jti }], now: this.clock.now() }, context);
        const attempt = newEvents[0]?.data as TokenRevocationAttemptedData | undefined;
        if (attempt === undefined) continue; // confirmed, stopped or expired meanwhile
        const result = await this.call(attempt, options.signal, options.trace);
        await this.ledger.execute(missionS256, { type: 'RecordRevocationResults', results: [result], now: this.clock.now() }, context);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.settings.concurrency, candidates.length) }, worker));
    state = await this.ledger.state(missionS256);
    await this.closeExpired(missionS256, state, context);
    const remaining = revocationCandidates(state, this.clock.now());
    if (remaining.length > 0 && options.lastRound) {
      await this.inBatches(remaining, (tokens) => this.ledger.execute(missionS256, { type: 'StopRevocations', tokens, reason: 'attempts_exhausted', now: this.clock.now() }, context));
      return { remaining: 0 };
    }
    return { remaining: remaining.length };
  }

  /**
   * Spec 2.5 `token_residual` now, after waiting at most `wait_ms` (spec 4.2 step 6: "MAY wait a short
   * bounded time for immediate revocation results") for every live token to have a first answer.
   */
  async residualAfterWaiting(missionS256: string, untrackedAccessModes: boolean, visibleTo?: (all: TrackedTokensState) => TrackedTokensState): Promise<JsonObject> {
    const deadline = this.clock.now().getTime() + this.settings.wait_ms;
    let state = await this.ledger.state(missionS256);
    while (awaitingFirstAnswer(state, this.clock.now()) && this.clock.now().getTime() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      state = await this.ledger.state(missionS256);
    }
    // Spec 2.5 (ADR 0019): `tracked` and the counts cover only the tokens the caller may know about.
    if (visibleTo !== undefined) return tokenResidualForCaller(state, visibleTo(state), this.clock.now(), { untrackedAccessModes });
    return tokenResidual(state, this.clock.now(), { untrackedAccessModes });
  }

  /** Spec 2.5 `token_residual` now, without waiting. */
  async residual(missionS256: string, untrackedAccessModes: boolean): Promise<JsonObject> {
    return tokenResidual(await this.ledger.state(missionS256), this.clock.now(), { untrackedAccessModes });
  }

  private async call(attempt: TokenRevocationAttemptedData, signal: AbortSignal | undefined, trace: RequestTrace | undefined): Promise<RevocationResult> {
    const base = { iss: attempt.iss, jti: attempt.jti, attempt: attempt.attempt };
    if (attempt.endpoint === undefined) return { ...base, outcome: 'no_endpoint' };
    await this.limiter.acquire(attempt.endpoint);
    const answer = await this.client.revoke(attempt.endpoint, attempt, signal, trace);
    return { ...base, outcome: answer.outcome, ...(answer.httpStatus !== undefined ? { httpStatus: answer.httpStatus } : {}) };
  }

  private async closeExpired(missionS256: string, state: TrackedTokensState, context: CommandContext): Promise<void> {
    const now = this.clock.now();
    const expired = [...state.tokens.values()].filter((token) => token.released && token.confirmedAt === undefined && token.stopped === undefined && isExpired(token, now));
    await this.inBatches(expired, (tokens) => this.ledger.execute(missionS256, { type: 'StopRevocations', tokens, reason: 'expired', now }, context));
  }

  private async inBatches(tokens: readonly TokenIdentity[], work: (batch: TokenIdentity[]) => Promise<unknown>): Promise<void> {
    for (let start = 0; start < tokens.length; start += BATCH) await work(tokens.slice(start, start + BATCH).map(({ iss, jti }) => ({ iss, jti })));
  }

  /** In the trace of the terminate that caused the revocation (ADR 0050), handed down with the work item. */
  private context(missionS256: string, trace: RequestTrace | undefined): CommandContext {
    return { correlationId: randomUUID(), causationId: `revocation:${missionS256}`, actor: { id: 'ps-revocation', role: 'system' }, now: this.clock.now(), trace };
  }
}

function awaitingFirstAnswer(state: TrackedTokensState, now: Date): boolean {
  return revocationCandidates(state, now).some((token) => token.answered === 0);
}

import type { EventStore } from '@mission/event-store';
import { evolveTrackedTokensMany, tokensStreamName, trackedTokenDecider, type TrackedTokenEvent, type TrackedTokensState } from '@mission/ps-domain';

/**
 * Spec 2.8: the Tracked Auth Tokens of a mission (`pstokens-<s256>`, folded in one pass) for the
 * token-impact summary of a termination decided outside a request (the expiry scheduler). Request paths
 * use the cached TokenLedger instead; this one runs once per mission.
 */
export async function readTrackedTokens(store: EventStore, s256: string): Promise<TrackedTokensState> {
  const events: TrackedTokenEvent[] = [];
  for await (const event of store.readStream(tokensStreamName(s256))) events.push(event as unknown as TrackedTokenEvent);
  return evolveTrackedTokensMany(trackedTokenDecider.initialState, events);
}

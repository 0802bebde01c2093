import type { AuthTokenIssuedData, TrackedTokenEvent } from './tracked-token.events.js';
import { tokenKey, type TrackedToken, type TrackedTokensState } from './tracked-token.state.js';

/** `evolve` of the Tracked Auth Tokens decider (one event). */
export function evolveTrackedTokens(state: TrackedTokensState, event: TrackedTokenEvent): TrackedTokensState {
  return evolveTrackedTokensMany(state, [event]);
}

/**
 * `evolve` over several events at once, copying the token map once instead of once per event (a
 * mission with n tokens would otherwise fold in O(n²)). Pure: the given state is never changed.
 */
export function evolveTrackedTokensMany(state: TrackedTokensState, events: readonly TrackedTokenEvent[]): TrackedTokensState {
  if (events.length === 0) return state;
  const tokens = new Map(state.tokens);
  let { approver, missionS256, sequence } = state;
  for (const event of events) {
    sequence = Math.max(sequence, event.data.sequence);
    const key = tokenKey(event.data);
    if (event.type === 'AuthTokenIssued') {
      if (tokens.has(key)) continue;
      approver = event.data.approver;
      missionS256 = event.data.mission_s256;
      tokens.set(key, issuedToken(event.data));
      continue;
    }
    const token = tokens.get(key);
    if (token !== undefined) tokens.set(key, applied(token, event));
  }
  return { ...(approver !== undefined ? { approver } : {}), ...(missionS256 !== undefined ? { missionS256 } : {}), sequence, tokens };
}

function issuedToken(d: AuthTokenIssuedData): TrackedToken {
  return {
    iss: d.iss,
    jti: d.jti,
    aud: d.aud,
    ...(d.exp !== undefined ? { exp: new Date(d.exp) } : {}),
    issuedAt: new Date(d.issued_at),
    origin: d.origin,
    ...(d.revocation_endpoint !== undefined ? { revocationEndpoint: d.revocation_endpoint } : {}),
    agent: d.agent,
    relationship: d.relationship,
    ...(d.parent_agent !== undefined ? { parentAgent: d.parent_agent } : {}),
    ...(d.upstream !== undefined ? { upstream: { iss: d.upstream.iss, jti: d.upstream.jti } } : {}),
    released: true,
    attempts: 0,
    answered: 0,
  };
}

function applied(token: TrackedToken, event: Exclude<TrackedTokenEvent, { type: 'AuthTokenIssued' }>): TrackedToken {
  switch (event.type) {
    case 'AuthTokenWithheld':
      return { ...token, released: false };
    case 'TokenRevocationAttempted':
      return { ...token, attempts: Math.max(token.attempts, event.data.attempt) };
    case 'TokenRevocationConfirmed':
      return token.confirmedAt !== undefined ? token : { ...token, answered: Math.max(token.answered, event.data.attempt), confirmedAt: new Date(event.data.occurred_at) };
    case 'TokenRevocationFailed':
      return { ...token, answered: Math.max(token.answered, event.data.attempt), lastFailure: event.data.outcome };
    case 'TokenRevocationStopped':
      return token.stopped !== undefined ? token : { ...token, stopped: event.data.reason };
    case 'AuthTokenRevoked': {
      // ADR 0016: the audience's own revocation is a confirmation (as its 200 would be); the holder's is local state only.
      const confirmedAt = token.confirmedAt ?? (event.data.revoked_by === 'audience' ? new Date(event.data.occurred_at) : undefined);
      const revokedBy = token.revokedBy === 'audience' ? 'audience' : event.data.revoked_by;
      return { ...token, revokedBy, ...(confirmedAt !== undefined ? { confirmedAt } : {}) };
    }
  }
}

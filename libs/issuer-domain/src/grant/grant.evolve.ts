import { Set as PersistentSet } from 'immutable';
import type { GrantEvent } from './grant.events.js';
import type { GrantState } from './grant.state.js';

/**
 * Retired refresh-token hashes as a persistent set: a rotation adds one hash in O(log n) and shares the rest with
 * the previous state, so folding a grant rotated 100,000 times is not quadratic (issue 15: copying a plain Set per
 * rotation made a refresh cost grow with the square of the rotation count). Reuse detection keeps every hash.
 */
const NO_RETIRED_TOKENS: PersistentSet<string> = PersistentSet<string>();

/** How each grant event changes the grant (the `evolve` of grantDecider). */
export function evolveGrant(state: GrantState, event: GrantEvent): GrantState {
  if (event.type === 'AuthorizationCodeIssued') {
    const d = event.data;
    return {
      status: 'code_issued',
      kind: 'authorization_code',
      grantId: d.grant_id,
      missionId: d.mission_id,
      clientId: d.client_id,
      codeHash: d.code_hash,
      redirectUri: d.redirect_uri,
      codeChallenge: d.code_challenge,
      ...(d.dpop_jkt !== undefined ? { dpopJkt: d.dpop_jkt } : {}),
      codeExpiresAt: new Date(d.expires_at),
      issuedAt: new Date(d.occurred_at),
      codeRedeemed: false,
      retiredRefreshTokenHashes: NO_RETIRED_TOKENS,
    };
  }
  if (event.type === 'ChildGrantIssued') {
    const d = event.data;
    return {
      status: 'code_issued',
      kind: 'child_creation',
      grantId: d.grant_id,
      missionId: d.mission_id,
      parentMissionId: d.parent_mission_id,
      lineageJkts: d.lineage_jkts ?? [],
      clientId: d.client_id,
      codeHash: d.grant_hash,
      codeExpiresAt: new Date(d.expires_at),
      issuedAt: new Date(d.occurred_at),
      codeRedeemed: false,
      retiredRefreshTokenHashes: NO_RETIRED_TOKENS,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'AuthorizationCodeRedeemed':
    case 'ChildGrantRedeemed':
      return { ...state, status: state.status === 'revoked' ? 'revoked' : 'active', codeRedeemed: true, jkt: event.data.jkt };
    case 'RefreshTokenIssued':
      return { ...state, refreshTokenHash: event.data.refresh_token_hash, jkt: event.data.jkt };
    case 'RefreshTokenRotated':
      return {
        ...state,
        refreshTokenHash: event.data.refresh_token_hash,
        jkt: event.data.jkt,
        retiredRefreshTokenHashes: state.retiredRefreshTokenHashes.add(event.data.previous_hash),
      };
    case 'GrantRevoked':
      return { ...state, status: 'revoked', revocation: { reason: event.data.reason, at: new Date(event.data.occurred_at) } };
  }
}

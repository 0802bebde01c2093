import type { GrantEvent } from './grant.events.js';
import type { GrantState } from './grant.state.js';

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
      retiredRefreshTokenHashes: new Set(),
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
      retiredRefreshTokenHashes: new Set(),
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
        retiredRefreshTokenHashes: new Set(state.retiredRefreshTokenHashes).add(event.data.previous_hash),
      };
    case 'GrantRevoked':
      return { ...state, status: 'revoked', revocation: { reason: event.data.reason, at: new Date(event.data.occurred_at) } };
  }
}

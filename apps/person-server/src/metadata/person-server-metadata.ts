/** Spec mission-management 2.2: what this PS implements; `delegation_tree` only once it is implemented in full (spec 9 rule 4). */
export const MISSION_MANAGEMENT_OPERATIONS = ['status', 'terminate', 'delegation_tree'] as const;

export interface PersonServerMetadataOptions {
  /** BASE_URL: the PS identifier (`approver` of every Mission Reference it holds). */
  readonly issuer: string;
  readonly operations: readonly string[];
}

/**
 * DESIGN 3.1 metadata, served at `/.well-known/agent-person.json` and `/.well-known/aauth-person.json`:
 * absolute endpoint URLs under the issuer identifier. Clients must check `issuer` and the endpoint
 * origin before sending references or credentials (spec 5 rule 8). `revocation_endpoint` is where an Auth
 * Token's holder or audience revokes it by `(iss, jti)` (DESIGN 3.1, ADR 0016).
 */
export function personServerMetadata(options: PersonServerMetadataOptions): Record<string, unknown> {
  const base = options.issuer.replace(/\/$/, '');
  return {
    issuer: options.issuer,
    jwks_uri: `${base}/jwks`,
    mission_endpoint: `${base}/mission`,
    token_endpoint: `${base}/token`,
    auth_token_endpoint: `${base}/token`,
    revocation_endpoint: `${base}/revoke`,
    // ADR 0034: a person's (or its tenant administrator's) proposals waiting for a decision.
    pending_proposals_endpoint: `${base}/proposals/pending`,
    // ADR 0040: a person's missions, an administrator's tenant's; the console at `${base}/console` reads it.
    missions_endpoint: `${base}/missions/list`,
    mission_management_operations_supported: [...options.operations],
  };
}

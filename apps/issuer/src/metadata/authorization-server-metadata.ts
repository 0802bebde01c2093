/**
 * RFC 8414 authorization server metadata with the members DESIGN 2.1 requires. Built once from the
 * issuer identifier: every endpoint is an absolute URL under it.
 */
export const SUPPORTED_SIGNING_ALGS = ['ES256', 'EdDSA'] as const;

export interface MetadataOptions {
  readonly issuer: string;
  readonly missionMaxStaleSeconds: number;
  /** Child Missions (spec child-mission-delegation) are advertised only once the issuer implements them. */
  readonly childDelegationSupported: boolean;
}

export function authorizationServerMetadata(options: MetadataOptions): Record<string, unknown> {
  const endpoint = (path: string) => `${options.issuer.replace(/\/$/, '')}${path}`;
  return {
    issuer: options.issuer,
    authorization_endpoint: endpoint('/authorize'),
    token_endpoint: endpoint('/token'),
    pushed_authorization_request_endpoint: endpoint('/par'),
    require_pushed_authorization_requests: true,
    jwks_uri: endpoint('/jwks'),
    introspection_endpoint: endpoint('/introspect'),
    revocation_endpoint: endpoint('/revoke'),
    mission_status_endpoint: endpoint('/missions/status'),
    mission_lifecycle_endpoint: endpoint('/missions/lifecycle'),
    mission_max_stale_seconds: options.missionMaxStaleSeconds,
    mission_bound_authorization_supported: true,
    mission_child_delegation_supported: options.childDelegationSupported,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', ...(options.childDelegationSupported ? ['urn:ietf:params:oauth:grant-type:mission-child-creation'] : [])],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['private_key_jwt'],
    token_endpoint_auth_signing_alg_values_supported: [...SUPPORTED_SIGNING_ALGS],
    introspection_endpoint_auth_methods_supported: ['private_key_jwt'],
    introspection_endpoint_auth_signing_alg_values_supported: [...SUPPORTED_SIGNING_ALGS],
    revocation_endpoint_auth_methods_supported: ['private_key_jwt'],
    revocation_endpoint_auth_signing_alg_values_supported: [...SUPPORTED_SIGNING_ALGS],
    dpop_signing_alg_values_supported: [...SUPPORTED_SIGNING_ALGS],
    authorization_details_types_supported: ['mission_resource_access'],
    authorization_response_iss_parameter_supported: true,
  };
}

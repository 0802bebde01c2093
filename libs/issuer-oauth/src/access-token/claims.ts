/** One RFC 9396 authorization details entry (`mission_resource_access` and others): `type` plus members. */
export interface AuthorizationDetail {
  readonly type: string;
  readonly [member: string]: unknown;
}

/** spec child-mission-delegation §2.3: lineage of a Child Mission, carried in its tokens' `mission` claim. */
export interface MissionParentClaim {
  readonly id: string;
  readonly issuer: string;
  readonly authority_hash: string;
  readonly depth: number;
  readonly cascade_mode: string;
  readonly delegation_id?: string;
  readonly created_at?: string;
}

/** The `mission` claim (DESIGN 2.3; spec child-mission-delegation §2.3 rule 3). */
export interface MissionClaim {
  readonly id: string;
  readonly issuer: string;
  readonly authority_hash: string;
  readonly parent?: MissionParentClaim;
}

/** The claims set of our access tokens: RFC 9068 §2.2 plus `authorization_details`, `cnf.jkt` and `mission`. */
export interface AccessTokenPayload {
  readonly iss: string;
  readonly sub: string;
  readonly aud: string | readonly string[];
  readonly client_id: string;
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
  readonly authorization_details: readonly AuthorizationDetail[];
  readonly cnf: { readonly jkt: string };
  readonly mission: MissionClaim;
}

/** RFC 9068 §2.1: the media type of JWT access tokens, as the `typ` header carries it. */
export const ACCESS_TOKEN_TYP = 'at+jwt';
/** DESIGN 2.3: access tokens are signed with ES256 only. */
export const ACCESS_TOKEN_ALG = 'ES256';

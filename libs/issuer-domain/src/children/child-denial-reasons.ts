/**
 * Spec child-mission-delegation §7, the one copy of its table: the closed set of denial reasons (not an
 * IANA registry) and the OAuth `error` each is answered with. Evidence records, the domain error and the
 * protocol answer all read it from here.
 */
export const OAUTH_ERROR_FOR_DENIAL = {
  parent_not_active: 'invalid_grant',
  parent_mismatch: 'invalid_grant',
  delegation_not_permitted: 'invalid_request',
  child_actor_not_allowed: 'invalid_request',
  not_strict_subset: 'invalid_request',
  fanout_exceeded: 'invalid_request',
  policy_denied: 'access_denied',
} as const satisfies Readonly<Record<string, 'invalid_grant' | 'invalid_request' | 'access_denied'>>;

export type ChildDenialReason = keyof typeof OAUTH_ERROR_FOR_DENIAL;
export type DenialOAuthError = (typeof OAUTH_ERROR_FOR_DENIAL)[ChildDenialReason];

export const CHILD_DENIAL_REASONS = Object.keys(OAUTH_ERROR_FOR_DENIAL) as readonly ChildDenialReason[];

export function isChildDenialReason(value: unknown): value is ChildDenialReason {
  return typeof value === 'string' && Object.hasOwn(OAUTH_ERROR_FOR_DENIAL, value);
}

import type { ProtocolErrorOptions } from '@mission/protocol-errors';

/**
 * Symbolic denial reasons of Child Mission creation (spec child-mission-delegation §7), carried as the
 * `mission_denial_reason` member beside the OAuth `error` member.
 */
export const MISSION_DENIAL_REASONS = [
  'parent_not_active',
  'parent_mismatch',
  'delegation_not_permitted',
  'child_actor_not_allowed',
  'not_strict_subset',
  'fanout_exceeded',
  'policy_denied',
] as const;
export type MissionDenialReason = (typeof MISSION_DENIAL_REASONS)[number];

/** The OAuth `error` each denial reason travels with (spec child-mission-delegation §7 table). */
export const MISSION_DENIAL_ERROR_CODE: Readonly<Record<MissionDenialReason, 'invalid_grant' | 'invalid_request' | 'access_denied'>> = {
  parent_not_active: 'invalid_grant',
  parent_mismatch: 'invalid_grant',
  delegation_not_permitted: 'invalid_request',
  child_actor_not_allowed: 'invalid_request',
  not_strict_subset: 'invalid_request',
  fanout_exceeded: 'invalid_request',
  policy_denied: 'access_denied',
};

/** Error options adding `mission_denial_reason` to whatever members the caller already gives. */
export function withMissionDenialReason(reason: MissionDenialReason, options: ProtocolErrorOptions = {}): ProtocolErrorOptions {
  return { ...options, members: { ...options.members, mission_denial_reason: reason } };
}

import type { ProtocolErrorOptions } from '@mission/protocol-errors';
import type { ChildDenialReason } from '@mission/issuer-domain';

/**
 * The spec child-mission-delegation §7 denial reasons and their OAuth `error` live in one table,
 * `OAUTH_ERROR_FOR_DENIAL` of `@mission/issuer-domain`; here they only ride on an error body as the
 * `mission_denial_reason` member beside the OAuth `error` member.
 */
export type MissionDenialReason = ChildDenialReason;

/** Error options adding `mission_denial_reason` to whatever members the caller already gives. */
export function withMissionDenialReason(reason: MissionDenialReason, options: ProtocolErrorOptions = {}): ProtocolErrorOptions {
  return { ...options, members: { ...options.members, mission_denial_reason: reason } };
}

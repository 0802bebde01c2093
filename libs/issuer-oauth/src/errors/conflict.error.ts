import { ProtocolError, type ProtocolErrorOptions } from '@mission/protocol-errors';

/** Why a state-changing request lost: `stale_version` (an `expected_version` that is no longer current), … */
export type ConflictReason = 'stale_version' | 'already_in_state' | 'concurrent_update' | (string & {});

/**
 * `409 {"error":"conflict","reason":…}`: the lifecycle request (DESIGN 2.1 `/missions/lifecycle`) names
 * a version or state the mission is no longer in (RFC 9110 §15.5.10).
 */
export class ConflictError extends ProtocolError {
  constructor(
    readonly reason: ConflictReason,
    description = 'the mission changed since it was read',
    options: ProtocolErrorOptions = {},
  ) {
    super(409, 'conflict', description, { ...options, members: { ...options.members, reason } });
  }
}

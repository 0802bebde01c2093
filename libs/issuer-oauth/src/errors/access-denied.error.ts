import { ProtocolError, type ProtocolErrorOptions } from '@mission/protocol-errors';
import { withMissionDenialReason, type MissionDenialReason } from './mission-denial-reason.js';

export interface AccessDeniedOptions extends ProtocolErrorOptions {
  /** `policy_denied` for Child Mission creation (spec child-mission-delegation §7). */
  readonly missionDenialReason?: MissionDenialReason;
}

/** RFC 6749 §4.1.2.1 `access_denied`: the owner or policy refused. 403 (DESIGN 2.1). */
export class AccessDeniedError extends ProtocolError {
  constructor(description = 'access denied', options: AccessDeniedOptions = {}) {
    const { missionDenialReason, ...rest } = options;
    super(403, 'access_denied', description, missionDenialReason === undefined ? rest : withMissionDenialReason(missionDenialReason, rest));
  }
}

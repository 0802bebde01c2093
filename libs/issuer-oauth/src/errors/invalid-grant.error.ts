import { ProtocolError, type ProtocolErrorOptions } from '@mission/protocol-errors';
import { withMissionDenialReason, type MissionDenialReason } from './mission-denial-reason.js';

export interface InvalidGrantOptions extends ProtocolErrorOptions {
  /** Mission-specific refinement of `invalid_grant`, e.g. `mission_not_active` (issuance profile). */
  readonly missionError?: string;
  /** Child creation denials (spec child-mission-delegation §7): `parent_not_active`, `parent_mismatch`. */
  readonly missionDenialReason?: MissionDenialReason;
}

/**
 * RFC 6749 §5.2 `invalid_grant`: the grant (code, refresh token, request_uri, parent_token) is invalid,
 * expired, revoked, bound to another client or key, or its mission no longer permits derivation.
 */
export class InvalidGrantError extends ProtocolError {
  constructor(description: string, options: InvalidGrantOptions = {}) {
    const { missionError, missionDenialReason, ...rest } = options;
    const withError: ProtocolErrorOptions = missionError === undefined ? rest : { ...rest, members: { ...rest.members, mission_error: missionError } };
    super(400, 'invalid_grant', description, missionDenialReason === undefined ? withError : withMissionDenialReason(missionDenialReason, withError));
  }
}

import { MissionClientError } from '../core/errors.js';

/** A refused resource request: `status` 401 (token or proof) or 403 (authority or mission state). */
export class ResourceAccessError extends MissionClientError {
  override readonly name = 'ResourceAccessError';

  constructor(
    readonly status: 401 | 403,
    /** `invalid_token`, `invalid_dpop_proof`, `insufficient_authorization`, `mission_not_active`, `mission_state_unavailable`. */
    code: string,
    message: string,
  ) {
    super(code, message);
  }
}

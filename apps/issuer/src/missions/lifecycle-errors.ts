import {
  InvalidLifecycleRequestError, InvalidTransitionError, MissionNotActiveError, MissionNotFoundError, NonceReuseError, StaleVersionError,
} from '@mission/issuer-domain';
import { ConflictError, InvalidRequestError, NotFoundError } from '@mission/issuer-oauth';

/**
 * Domain refusals of `POST /missions/lifecycle` as protocol answers (issue 3 item 9): a stale
 * compare-and-set, an impossible transition, a reused nonce and a mission that is no longer changeable
 * are `409 conflict` with a `reason`; malformed values are `invalid_request`; anything else is rethrown.
 */
export function lifecycleProtocolError(error: unknown): unknown {
  if (error instanceof MissionNotFoundError) return new NotFoundError();
  if (error instanceof InvalidLifecycleRequestError) return new InvalidRequestError(error.message);
  if (error instanceof StaleVersionError) return new ConflictError('stale_version', error.message);
  if (error instanceof NonceReuseError) return new ConflictError('nonce_reuse', error.message);
  if (error instanceof MissionNotActiveError) return new ConflictError(error.missionError, error.message);
  if (error instanceof InvalidTransitionError) return new ConflictError('invalid_transition', error.message);
  return error;
}

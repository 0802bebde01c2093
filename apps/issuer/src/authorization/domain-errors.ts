import {
  AuthorizationRequestAlreadyUsedError,
  AuthorizationRequestExpiredError,
  AuthorizationRequestNotFoundError,
  InvalidAuthorizationDetailsError as DomainInvalidAuthorizationDetailsError,
  InvalidGrantError as DomainInvalidGrantError,
  InvalidMissionIntentError,
  MissionNotActiveError,
  MissionNotFoundError,
} from '@mission/issuer-domain';
import { InvalidAuthorizationDetailsError, InvalidGrantError, InvalidRequestError } from '@mission/issuer-oauth';

/**
 * Domain refusals of the authorization flows as OAuth answers. Domain messages are written to be safe
 * as `error_description` (they never quote input). Anything else (a bug, a store failure) is rethrown.
 */
export function authorizationProtocolError(error: unknown): unknown {
  // RFC 9126 §4 / DESIGN 2.1: an unknown, foreign, used or expired request_uri is answered alike (no redirect).
  if (error instanceof AuthorizationRequestNotFoundError || error instanceof AuthorizationRequestExpiredError || error instanceof AuthorizationRequestAlreadyUsedError) {
    return new InvalidRequestError(`request_uri: ${error.message}`);
  }
  // DESIGN 2.3: mission_intent is closed and validated; malformed → invalid_request.
  if (error instanceof InvalidMissionIntentError) return new InvalidRequestError(error.message);
  // RFC 9396 §5: invalid authorization_details.
  if (error instanceof DomainInvalidAuthorizationDetailsError) return new InvalidAuthorizationDetailsError(error.message);
  // RFC 6749 §5.2: every grant refusal is invalid_grant.
  if (error instanceof DomainInvalidGrantError) return new InvalidGrantError(error.message);
  // DESIGN 2.3: only an exactly active, unexpired mission permits derivation; the code says why not.
  if (error instanceof MissionNotActiveError) return new InvalidGrantError(error.message, { missionError: error.missionError });
  if (error instanceof MissionNotFoundError) return new InvalidGrantError('the grant has no mission');
  return error;
}

/** Runs `work` and converts domain refusals with authorizationProtocolError. */
export async function asProtocolErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw authorizationProtocolError(error);
  }
}

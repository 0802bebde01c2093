import {
  AuthorizationRequestAlreadyUsedError,
  AuthorizationRequestExpiredError,
  AuthorizationRequestNotFoundError,
  ChildCreationDeniedError,
  FanOutExceededError,
  InvalidAuthorizationDetailsError as DomainInvalidAuthorizationDetailsError,
  InvalidGrantError as DomainInvalidGrantError,
  InvalidLifecycleRequestError,
  InvalidMissionIntentError,
  InvalidTransitionError,
  MissionNotActiveError,
  MissionNotFoundError,
  NonceReuseError,
  OAUTH_ERROR_FOR_DENIAL,
  ParentNotActiveError,
  StaleVersionError,
  type ChildDenialReason,
  type DenialOAuthError,
} from '@mission/issuer-domain';
import {
  AccessDeniedError, ConflictError, InvalidAuthorizationDetailsError, InvalidGrantError, InvalidRequestError, NotFoundError, withMissionDenialReason,
  type ProtocolError,
} from '@mission/issuer-oauth';

/**
 * The issuer's one translation of domain refusals into protocol errors (one class per protocol error code,
 * in `@mission/issuer-oauth`; the platform's ErrorResponseFilter writes them). Domain messages are written to
 * be safe as `error_description` (they never quote input). Anything that is not a refusal (a bug, a store
 * failure) is returned unchanged and becomes a 500.
 *
 * Two surfaces answer the same domain error differently, so the table has two columns:
 * - `grant`: the OAuth flows (PAR, /authorize, /token, /revoke, child creation): refusals are `invalid_grant`,
 *   `invalid_request`, `invalid_authorization_details` (RFC 6749 §5.2, RFC 9126 §4, RFC 9396 §5, DESIGN 2.3);
 * - `lifecycle`: `POST /missions/lifecycle` (DESIGN 2.1, issue 3 item 9): a stale compare-and-set, an impossible
 *   transition, a reused nonce and a mission no longer changeable are `409 conflict` with a `reason`.
 */
export type RefusalSurface = 'grant' | 'lifecycle';

export function protocolErrorOf(error: unknown, surface: RefusalSurface = 'grant'): unknown {
  return surface === 'lifecycle' ? lifecycleRefusal(error) : grantRefusal(error);
}

/** Runs `work` and answers its domain refusals as `surface` does. */
export async function asProtocolErrors<T>(work: () => Promise<T>, surface: RefusalSurface = 'grant'): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw protocolErrorOf(error, surface);
  }
}

function grantRefusal(error: unknown): unknown {
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

function lifecycleRefusal(error: unknown): unknown {
  if (error instanceof MissionNotFoundError) return new NotFoundError();
  if (error instanceof InvalidLifecycleRequestError) return new InvalidRequestError(error.message);
  if (error instanceof StaleVersionError) return new ConflictError('stale_version', error.message);
  if (error instanceof NonceReuseError) return new ConflictError('nonce_reuse', error.message);
  if (error instanceof MissionNotActiveError) return new ConflictError(error.missionError, error.message);
  if (error instanceof InvalidTransitionError) return new ConflictError('invalid_transition', error.message);
  return error;
}

/** A denial of spec 4.1 steps 3–10 with its spec 7 reason, or `undefined` for anything else. */
export function childDenialOf(error: unknown): { readonly reason: ChildDenialReason; readonly message: string } | undefined {
  if (error instanceof ChildCreationDeniedError) return { reason: error.missionDenialReason, message: error.message };
  // Step 10: the attachment decided over the parent stream refused (parent no longer active, slot taken meanwhile).
  if (error instanceof ParentNotActiveError) return { reason: 'parent_not_active', message: error.message };
  if (error instanceof FanOutExceededError) return { reason: 'fanout_exceeded', message: error.message };
  return undefined;
}

/** The protocol error class of each OAuth `error` a spec 7 row names. */
const DENIAL_ANSWER: Readonly<Record<DenialOAuthError, (message: string, reason: ChildDenialReason) => ProtocolError>> = {
  invalid_grant: (message, reason) => new InvalidGrantError(message, { missionDenialReason: reason }),
  access_denied: (message, reason) => new AccessDeniedError(message, { missionDenialReason: reason }),
  invalid_request: (message, reason) => new InvalidRequestError(message, withMissionDenialReason(reason)),
};

/** Spec 7: the OAuth `error` of the reason's row (OAUTH_ERROR_FOR_DENIAL), with `mission_denial_reason` beside it. */
export function childDenialProtocolError(reason: ChildDenialReason, message: string): ProtocolError {
  return DENIAL_ANSWER[OAUTH_ERROR_FOR_DENIAL[reason]](message, reason);
}

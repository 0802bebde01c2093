import { IssuerDomainError } from '../shared/errors.js';
import type { ChildDenialReason } from './child-evidence.js';

/** Spec 7: the OAuth `error` each denial reason is answered with. */
export const OAUTH_ERROR_FOR_DENIAL: Readonly<Record<ChildDenialReason, 'invalid_grant' | 'invalid_request' | 'access_denied'>> = {
  parent_not_active: 'invalid_grant',
  parent_mismatch: 'invalid_grant',
  delegation_not_permitted: 'invalid_request',
  child_actor_not_allowed: 'invalid_request',
  not_strict_subset: 'invalid_request',
  fanout_exceeded: 'invalid_request',
  policy_denied: 'access_denied',
};

/**
 * A Child Mission creation refused at one of the spec 4.1 steps, with its spec 7 denial reason.
 * The message is safe as `error_description` (names members, never quotes values).
 */
export class ChildCreationDeniedError extends IssuerDomainError {
  readonly error: 'invalid_grant' | 'invalid_request' | 'access_denied';

  constructor(
    readonly missionDenialReason: ChildDenialReason,
    message: string,
  ) {
    super(message);
    this.error = OAUTH_ERROR_FOR_DENIAL[missionDenialReason];
  }
}

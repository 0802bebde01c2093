import { IssuerDomainError } from '../shared/errors.js';
import { OAUTH_ERROR_FOR_DENIAL, type ChildDenialReason, type DenialOAuthError } from './child-denial-reasons.js';

/**
 * A Child Mission creation refused at one of the spec 4.1 steps, with its spec 7 denial reason.
 * The message is safe as `error_description` (names members, never quotes values).
 */
export class ChildCreationDeniedError extends IssuerDomainError {
  readonly error: DenialOAuthError;

  constructor(
    readonly missionDenialReason: ChildDenialReason,
    message: string,
  ) {
    super(message);
    this.error = OAUTH_ERROR_FOR_DENIAL[missionDenialReason];
  }
}

import { IssuerDomainError } from '../shared/errors.js';

/** A `mission_intent` the issuer refuses; the message is fit for `error_description` (`invalid_request`). */
export class InvalidMissionIntentError extends IssuerDomainError {
  readonly error = 'invalid_request';
}

import { IssuerDomainError } from '../shared/errors.js';

/**
 * `authorization_details` the issuer refuses (RFC 9396 §5: `invalid_authorization_details`), an
 * unknown `type` included. The message names the offending member and rule and is fit for
 * `error_description`.
 */
export class InvalidAuthorizationDetailsError extends IssuerDomainError {
  readonly error = 'invalid_authorization_details';
}

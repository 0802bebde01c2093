import { IssuerDomainError } from '../shared/errors.js';

/** A lifecycle request with a malformed client-supplied value (`reason`, `nonce`, `expected_version`). */
export class InvalidLifecycleRequestError extends IssuerDomainError {
  readonly error = 'invalid_request';
}

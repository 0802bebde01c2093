import { IssuerDomainError } from '../shared/errors.js';

/* RFC 9126 §2.2 / RFC 6749 §4.1.2.1: refusals at /authorize are `invalid_request_uri`. */

export class AuthorizationRequestNotFoundError extends IssuerDomainError {
  readonly error: string = 'invalid_request_uri';
  constructor(message = 'the request_uri is unknown') {
    super(message);
  }
}

/**
 * The `request_uri` belongs to another client. A subclass of the not-found error on purpose: the
 * client must not learn that the request exists (answer it exactly like an unknown request_uri).
 */
export class AuthorizationRequestClientMismatchError extends AuthorizationRequestNotFoundError {}

export class AuthorizationRequestExpiredError extends IssuerDomainError {
  readonly error = 'invalid_request_uri';
  constructor() {
    super('the request_uri has expired');
  }
}

/** RFC 9126 §4: a request_uri is used once. */
export class AuthorizationRequestAlreadyUsedError extends IssuerDomainError {
  readonly error = 'invalid_request_uri';
  constructor() {
    super('the request_uri was already used');
  }
}

/** A second `PushAuthorizationRequest` on the same stream (ids are random: a bug). */
export class AuthorizationRequestExistsError extends IssuerDomainError {}

import { IssuerDomainError } from '../shared/errors.js';

/**
 * RFC 6749 §5.2 `invalid_grant`: the code or refresh token is invalid, expired, revoked, does not
 * match the redirection URI, or was issued to another client. Subclasses say which, for logs and
 * audit; the client gets `invalid_grant` for all of them.
 */
export class InvalidGrantError extends IssuerDomainError {
  readonly error = 'invalid_grant';
}

/** No grant on that stream. */
export class GrantNotFoundError extends InvalidGrantError {
  constructor() {
    super('the grant is unknown');
  }
}

/** The presented code or refresh token does not match the grant's stored hash (and was never valid). */
export class UnknownGrantTokenError extends InvalidGrantError {
  constructor(what: 'authorization code' | 'refresh token' | 'child creation grant') {
    super(`the ${what} is invalid`);
  }
}

export class GrantRevokedError extends InvalidGrantError {
  constructor() {
    super('the grant has been revoked');
  }
}

/** RFC 6749 §4.1.2: a code used twice. The grant has been revoked by the same decision. */
export class AuthorizationCodeReusedError extends InvalidGrantError {
  constructor() {
    super('the authorization code was already used; tokens issued from it are revoked');
  }
}

/** A rotated refresh token presented again (OAuth 2.0 Security BCP §4.14.2). The grant has been revoked. */
export class RefreshTokenReusedError extends InvalidGrantError {
  constructor() {
    super('the refresh token was already used; the grant is revoked');
  }
}

export class AuthorizationCodeExpiredError extends InvalidGrantError {
  constructor() {
    super('the authorization code has expired');
  }
}

/** RFC 6749 §4.1.3 / §6: the credential was issued to another client. */
export class GrantClientMismatchError extends InvalidGrantError {
  constructor() {
    super('the grant was issued to another client');
  }
}

/** RFC 6749 §4.1.3: `redirect_uri` differs from the one in the authorization request. */
export class RedirectUriMismatchError extends InvalidGrantError {
  constructor() {
    super('redirect_uri does not match the authorization request');
  }
}

/** RFC 7636 §4.6: S256(code_verifier) ≠ code_challenge. */
export class PkceVerificationError extends InvalidGrantError {
  constructor() {
    super('code_verifier does not match the code_challenge');
  }
}

/** RFC 9449 §5, §10: the DPoP key differs from the key the code (`dpop_jkt`) or refresh token is bound to. */
export class DpopBindingMismatchError extends InvalidGrantError {
  constructor() {
    super('the DPoP proof key is not the key the grant is bound to');
  }
}

/** DESIGN 2.4: a Child Mission's creation grant presented again. The grant has been revoked. */
export class ChildGrantReusedError extends InvalidGrantError {
  constructor() {
    super('the request_uri was already redeemed; tokens issued from it are revoked');
  }
}

/** DESIGN 2.4: the creation grant lapsed (the Child Mission is revoked by the issuer). */
export class ChildGrantExpiredError extends InvalidGrantError {
  constructor() {
    super('the request_uri has expired');
  }
}

/** A code presented as a creation grant, or the other way round. */
export class WrongGrantKindError extends InvalidGrantError {
  constructor() {
    super('the grant is of another kind');
  }
}

/** `LapseChildGrant` before the grant's expiry (e.g. clock skew between replicas): retry later. Not a client error. */
export class ChildGrantNotYetExpiredError extends IssuerDomainError {
  constructor() {
    super('the creation grant has not reached its expiry yet');
  }
}

/**
 * Spec 1 item 4, 2.5 rule 8, 5 rules 3–4: the redemption's DPoP key is the parent grant's key or an ancestor
 * grant's key, so the "child" tokens would be usable by the parent. Refused; the grant stays redeemable by the
 * child actor with its own key.
 */
export class ChildKeyIsLineageKeyError extends InvalidGrantError {
  constructor() {
    super('the DPoP key is the key of the parent grant or of an ancestor grant; child tokens must be bound to the child actor\'s own key');
  }
}

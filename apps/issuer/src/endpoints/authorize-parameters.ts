import { timingSafeEqual } from 'node:crypto';
import { AccessDeniedError, InvalidRequestError } from '@mission/issuer-oauth';
import { secureRandomBytes } from '@mission/platform';
import type { OAuthForm } from '../http/oauth-form.js';

const AUTHORIZE_PARAMETERS = new Set(['client_id', 'request_uri']);
const CSRF_TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** How long a rendered consent form may be submitted (the cookie's Max-Age). */
export const CSRF_COOKIE_MAX_AGE_SECONDS = 600;

// DESIGN 2.1 / RFC 9126 §4 (require_pushed_authorization_requests): /authorize takes client_id and request_uri only.
export function onlyPushedParameters(form: OAuthForm): void {
  const others = form.names().filter((name) => !AUTHORIZE_PARAMETERS.has(name));
  if (others.length > 0) {
    throw new InvalidRequestError(`authorization parameters must be pushed to /par; /authorize accepts only client_id and request_uri (got ${others.slice(0, 5).join(', ')})`);
  }
}

/** The double-submit CSRF cookie (OWASP CSRF cheat sheet): `__Host-` on https; on plain http (local demos) a plain name scoped to /authorize. */
export interface CsrfCookie {
  readonly name: string;
  readonly attributes: string;
}

export function csrfCookie(issuer: string): CsrfCookie {
  const secure = new URL(issuer).protocol === 'https:';
  return secure
    ? { name: '__Host-authorize_csrf', attributes: `Secure; HttpOnly; SameSite=Strict; Path=/; Max-Age=${CSRF_COOKIE_MAX_AGE_SECONDS}` }
    : { name: 'authorize_csrf', attributes: `HttpOnly; SameSite=Strict; Path=/authorize; Max-Age=${CSRF_COOKIE_MAX_AGE_SECONDS}` };
}

export function newCsrfToken(): string {
  return secureRandomBytes(32).toString('base64url');
}

export function setCsrfCookie(cookie: CsrfCookie, token: string): string {
  return `${cookie.name}=${token}; ${cookie.attributes}`;
}

export function clearCsrfCookie(cookie: CsrfCookie): string {
  return `${cookie.name}=; ${cookie.attributes.replace(/Max-Age=\d+/, 'Max-Age=0')}`;
}

/** The value of cookie `name` in a Cookie header (RFC 6265 §5.4), or undefined; a repeated name counts as absent. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  const values = header.split(';').map((pair) => pair.trim()).filter((pair) => pair.startsWith(`${name}=`)).map((pair) => pair.slice(name.length + 1));
  return values.length === 1 ? values[0] : undefined;
}

// OWASP double-submit cookie: the form's csrf_token equals the cookie set with the page (constant-time compare).
export function assertCsrf(cookieToken: string | undefined, formToken: string | undefined): string {
  const ok =
    cookieToken !== undefined && formToken !== undefined && CSRF_TOKEN.test(cookieToken) && CSRF_TOKEN.test(formToken) &&
    timingSafeEqual(Buffer.from(cookieToken), Buffer.from(formToken));
  if (!ok) throw new AccessDeniedError('the consent form could not be verified (CSRF check failed); reload the authorization page');
  return cookieToken;
}

/** The person's decision on the consent page. */
export function decisionOf(form: OAuthForm): 'approve' | 'decline' {
  const decision = form.required('decision', 16);
  if (decision !== 'approve' && decision !== 'decline') throw new InvalidRequestError('decision must be approve or decline');
  return decision;
}

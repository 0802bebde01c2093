import { renderAuthorityTable } from './authority-table.js';
import { escapeHtml } from './escape-html.js';

/**
 * The server-rendered consent page: a person signs in and approves or declines one pushed request.
 * Everything the client proposed (goal, authority set, expiry) is shown as inert, escaped text — a
 * client controls those strings and must not be able to inject markup or script into the page.
 */
export interface ConsentView {
  readonly clientId: string;
  readonly requestUri: string;
  readonly goal: string;
  readonly expiresAt: string;
  readonly authoritySet: unknown;
  readonly csrfToken: string;
  readonly error?: string;
}

export { escapeHtml };

/** No script, no inline style, forms post only back here, never framed (clickjacking). */
export const CONSENT_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export function renderConsentPage(view: ConsentView): string {
  const field = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Approve a mission</title></head>
<body>
<h1>Approve a mission for ${escapeHtml(view.clientId)}</h1>
${view.error ? `<p role="alert">${escapeHtml(view.error)}</p>` : ''}
<h2>Goal</h2>
<p>${escapeHtml(view.goal)}</p>
<h2>Expires</h2>
<p>${escapeHtml(view.expiresAt)}</p>
<h2>Authority requested</h2>
${renderAuthorityTable(view.authoritySet)}
<form method="post" action="/authorize/decision">
${field('request_uri', view.requestUri)}
${field('client_id', view.clientId)}
${field('csrf_token', view.csrfToken)}
<p><label>Person <input name="person" autocomplete="username" required></label></p>
<p><label>Password <input name="password" type="password" autocomplete="current-password" required></label></p>
<p><button name="decision" value="approve">Approve</button> <button name="decision" value="decline">Decline</button></p>
</form>
</body>
</html>
`;
}

/**
 * Absolute URIs as RFC 8707 resource indicators require them: RFC 3986 syntax (ASCII only, no IRIs),
 * a scheme, no fragment. The string is kept exactly as given: the subset rule (DESIGN 2.4) compares
 * resources byte for byte, so nothing is normalised here.
 */
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~:/?[\]@!$&'()*+,;=%]+$/;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;

export const MAX_URI_LENGTH = 2048;

/** Why `value` is not an acceptable absolute URI, or `undefined` when it is. */
export function absoluteUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return 'must be a non-empty string';
  if (value.length > MAX_URI_LENGTH) return `must be at most ${MAX_URI_LENGTH} characters`;
  if (value.includes('#')) return 'must not contain a fragment';
  // URL.canParse: the WHATWG parser's answer without building a URL object nobody reads (issue 15).
  if (!ABSOLUTE_URI.test(value) || BAD_PERCENT.test(value) || !URL.canParse(value)) return 'must be an absolute URI (RFC 3986)';
  return undefined;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * The form of an http(s) URI that `htu` is compared in (RFC 9449 §4.3 step 9): query and fragment
 * dropped, then syntax-based (RFC 3986 §6.2.2: case of scheme and host, percent-encoding case, decoding
 * of unreserved characters, dot segments) and scheme-based normalization (§6.2.3: default port, empty
 * path as `/`). `undefined` for anything that is not an absolute http(s) URI without user information.
 */
export function normalizeHtu(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  const path = url.pathname.replace(/%[0-9A-Fa-f]{2}/g, (escape) => {
    const character = String.fromCharCode(Number.parseInt(escape.slice(1), 16));
    return UNRESERVED.test(character) ? character : escape.toUpperCase();
  });
  return `${url.protocol}//${url.host}${path}`;
}

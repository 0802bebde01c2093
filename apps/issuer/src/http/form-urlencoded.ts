/**
 * The name–value pairs of an `application/x-www-form-urlencoded` body, in order, exactly as
 * `new URLSearchParams(body.toString('utf8'))` gives them (WHATWG URL), without its per-byte work: a leading
 * `?` is dropped (as that constructor does), a component without `%` or `+`
 * is itself, `+` is a space, and percent-escapes are decoded by `decodeURIComponent`, which agrees with the
 * standard's percent-decode + UTF-8 decode whenever it succeeds (well-formed escapes of valid UTF-8).
 * When any component is not that (a lone `%`, invalid UTF-8), URLSearchParams parses the whole body:
 * its lenient answer (escapes kept literally, U+FFFD) stays the answer. Taking bytes keeps the text
 * well-formed UTF-16 (no lone surrogates for URLSearchParams to replace). form-urlencoded.spec.ts compares
 * both on random bodies.
 */
export function formPairs(raw: Buffer): Array<[string, string]> {
  const body = raw.toString('utf8');
  const pairs: Array<[string, string]> = [];
  let start = body.startsWith('?') ? 1 : 0;
  while (start <= body.length) {
    let end = body.indexOf('&', start);
    if (end === -1) end = body.length;
    if (end > start) {
      const equals = body.indexOf('=', start);
      const split = equals === -1 || equals > end ? end : equals;
      const name = decodeComponent(body.slice(start, split));
      const value = split === end ? '' : decodeComponent(body.slice(split + 1, end));
      if (name === undefined || value === undefined) return [...new URLSearchParams(body)];
      pairs.push([name, value]);
    }
    start = end + 1;
  }
  return pairs;
}

/** The decoded component, or undefined when only the standard's lenient decoding can answer. */
function decodeComponent(component: string): string | undefined {
  const spaced = component.includes('+') ? component.replaceAll('+', ' ') : component;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}

import { parseDictionary } from 'structured-headers';

/** RFC 8941 §3.2 / §3.1.2: a member starts with its key, `( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )`. */
const LEADING_KEY = /^[a-z*][a-z0-9_\-.*]*/;

/**
 * The top-level member keys of a Dictionary field value, in order, duplicates included: RFC 8941 parsing
 * keeps only the last of duplicate keys, but a repeated signature label is ambiguous and is refused.
 * Splits on top-level commas (outside strings and inner lists) and takes each member's leading key.
 *
 * For a value that `parseDictionary` accepted, as both callers check first: every member then starts with its key,
 * so the key is read off without parsing the member a second time (which decoded every signature's bytes and every
 * Signature-Key JWT again: ≈ 8 % of a Person Server status request's garbage, issue 15). A member that does not
 * start with a key (a value that was not checked) is parsed on its own, as before.
 */
export function dictionaryMemberKeys(value: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let inString = false;
  // RFC 9651 §3.3.8 Display String `%"…"`: a backslash is a plain character there (escapes are %XX), unlike in a String.
  let inDisplayString = false;
  let start = 0;
  const flush = (end: number): void => {
    const member = value.slice(start, end).trim();
    if (member === '') return;
    const key = LEADING_KEY.exec(member)?.[0];
    if (key !== undefined) keys.push(key);
    else keys.push(...parseDictionary(member).keys());
  };
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (inString) {
      if (c === '\\' && !inDisplayString) i++;
      else if (c === '"') inString = inDisplayString = false;
    } else if (c === '"') {
      inString = true;
      inDisplayString = i > 0 && value[i - 1] === '%';
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      flush(i);
      start = i + 1;
    }
  }
  flush(value.length);
  return keys;
}

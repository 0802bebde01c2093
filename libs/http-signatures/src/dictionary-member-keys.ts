import { parseDictionary } from 'structured-headers';

/**
 * The top-level member keys of a Dictionary field value, in order, duplicates included: RFC 8941 parsing
 * keeps only the last of duplicate keys, but a repeated signature label is ambiguous and is refused.
 * Splits on top-level commas (outside strings and inner lists) and parses each member alone.
 */
export function dictionaryMemberKeys(value: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  const flush = (end: number): void => {
    const member = value.slice(start, end).trim();
    if (member !== '') keys.push(...parseDictionary(member).keys());
  };
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      flush(i);
      start = i + 1;
    }
  }
  flush(value.length);
  return keys;
}

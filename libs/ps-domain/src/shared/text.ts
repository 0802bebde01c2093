/** A lone UTF-16 surrogate cannot be encoded as UTF-8, so the bytes (and any hash of them) would be ambiguous. */
const LONE_SURROGATE = /\p{Cs}/u;

export function isWellFormedString(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

/** C0 and C1 control characters and DEL (line breaks and tabs included). */
export function hasControlCharacters(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** A non-empty, well-formed string of at most `maxLength` UTF-16 code units without control characters. */
export function isBoundedText(value: unknown, maxLength: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= maxLength && isWellFormedString(value) && !hasControlCharacters(value);
}

/** Visible ASCII (%x21-7E) only: identifiers compared exactly as the client typed them. */
export function isVisibleAscii(value: string): boolean {
  return /^[\x21-\x7e]*$/.test(value);
}

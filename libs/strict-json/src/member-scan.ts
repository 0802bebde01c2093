import { StrictJsonError } from './strict-json-error.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * For text JSON.parse has already accepted: refuses a container nested `maxDepth` deep and a member name
 * repeated within one object, in document order (the order the AST walk of ast-parse.ts reports them), in
 * one pass. Names are compared decoded (`"a"` and `"\u0061"` are the same name); only a name with an
 * escape is decoded, by JSON.parse itself. The text being valid JSON is what makes this scan sound:
 * outside strings only structure, numbers, literals and white space remain, and a string ends at the first
 * quote not preceded by an odd run of backslashes.
 */
export function checkDepthAndMemberNames(text: string, maxDepth: number): void {
  // One entry per open container: the names seen so far in an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectName = false;
  // The first backslash at or after the string being read (-1: none left): only moves forward.
  let nextBackslash = text.indexOf('\\');
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const start = index;
      index = closingQuote(text, start);
      if (!expectName) continue;
      expectName = false;
      if (nextBackslash !== -1 && nextBackslash < start) nextBackslash = text.indexOf('\\', start);
      const escaped = nextBackslash !== -1 && nextBackslash < index;
      const name = escaped ? (JSON.parse(text.slice(start, index + 1)) as string) : text.slice(start + 1, index);
      const names = open[open.length - 1]!;
      if (names.has(name)) throw new StrictJsonError(`duplicate member name ${JSON.stringify(name)}`);
      names.add(name);
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (open.length >= maxDepth) throw new StrictJsonError(`JSON nests deeper than ${maxDepth} levels`);
      open.push(code === OPEN_OBJECT ? new Set() : null);
      expectName = code === OPEN_OBJECT;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      open.pop();
      expectName = false;
    } else if (code === COMMA) {
      expectName = open[open.length - 1] !== null;
    }
  }
}

/** The index of the quote that closes the string opening at `start` (the end of the text if none does). */
function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

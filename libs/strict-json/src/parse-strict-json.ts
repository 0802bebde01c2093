import { parseWithAst } from './ast-parse.js';
import { checkDepthAndMemberNames } from './member-scan.js';
import { StrictJsonError } from './strict-json-error.js';

export { StrictJsonError } from './strict-json-error.js';

export interface StrictJsonLimits {
  /** UTF-8 bytes of the text (default 64 KiB). */
  readonly maxBytes?: number;
  /** Nesting of arrays and objects (default 32). */
  readonly maxDepth?: number;
}

/**
 * JSON.parse for protocol input: a member name may appear once per object — JSON.parse silently keeps the
 * last duplicate, which lets two parsers of the same bytes disagree about what was asked — and nesting
 * and size are bounded.
 *
 * Text JSON.parse accepts is checked by one linear scan for depth and duplicate names (member-scan.ts) and
 * answered with JSON.parse's value: about 10× less CPU than building @humanwhocodes/momoa's AST (ADR 0072).
 * Text JSON.parse refuses goes through the AST check as before (ast-parse.ts), so its answer, message
 * included, is unchanged — including what momoa accepts and JSON.parse does not (an unescaped tab inside a
 * string). Property tests compare both paths on random text (parse-strict-json.property.spec.ts).
 */
export function parseStrictJson(text: string, limits: StrictJsonLimits = {}): unknown {
  const maxBytes = limits.maxBytes ?? 65_536;
  const maxDepth = limits.maxDepth ?? 32;
  // A UTF-16 code unit is at most 3 UTF-8 bytes (a pair of them 4): short text needs no count.
  if (text.length * 3 > maxBytes && Buffer.byteLength(text, 'utf8') > maxBytes) throw new StrictJsonError(`JSON text exceeds ${maxBytes} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseWithAst(text, maxDepth);
  }
  checkDepthAndMemberNames(text, maxDepth);
  return value;
}

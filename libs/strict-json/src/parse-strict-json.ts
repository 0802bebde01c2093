import { evaluate, parse, type AnyNode, type DocumentNode } from '@humanwhocodes/momoa';

export class StrictJsonError extends Error {}

export interface StrictJsonLimits {
  /** UTF-8 bytes of the text (default 64 KiB). */
  readonly maxBytes?: number;
  /** Nesting of arrays and objects (default 32). */
  readonly maxDepth?: number;
}

/**
 * JSON.parse for protocol input: RFC 8259 only (no comments, no trailing commas), and a member name
 * may appear once per object — JSON.parse silently keeps the last duplicate, which lets two parsers of
 * the same bytes disagree about what was asked. Parsing goes through @humanwhocodes/momoa's AST so that
 * duplicates are seen before values are evaluated.
 */
export function parseStrictJson(text: string, limits: StrictJsonLimits = {}): unknown {
  const maxBytes = limits.maxBytes ?? 65_536;
  if (Buffer.byteLength(text, 'utf8') > maxBytes) throw new StrictJsonError(`JSON text exceeds ${maxBytes} bytes`);
  let document: DocumentNode;
  try {
    document = parse(text, { mode: 'json', ranges: false, tokens: false });
  } catch (error) {
    throw new StrictJsonError(`not valid JSON: ${(error as Error).message}`);
  }
  checkNode(document.body, 0, limits.maxDepth ?? 32);
  return evaluate(document.body);
}

function checkNode(node: AnyNode, depth: number, maxDepth: number): void {
  if (node.type !== 'Object' && node.type !== 'Array') return;
  if (depth >= maxDepth) throw new StrictJsonError(`JSON nests deeper than ${maxDepth} levels`);
  if (node.type === 'Array') {
    for (const element of node.elements) checkNode(element.value, depth + 1, maxDepth);
    return;
  }
  const names = new Set<string>();
  for (const member of node.members) {
    const name = member.name.type === 'String' ? member.name.value : member.name.name;
    if (names.has(name)) throw new StrictJsonError(`duplicate member name ${JSON.stringify(name)}`);
    names.add(name);
    checkNode(member.value, depth + 1, maxDepth);
  }
}

import { evaluate, parse, type AnyNode, type DocumentNode } from '@humanwhocodes/momoa';
import { StrictJsonError } from './strict-json-error.js';

/**
 * The full check through @humanwhocodes/momoa's AST: syntax, then nesting and duplicate member names in
 * document order, then the value. `parseStrictJson` uses it only for text JSON.parse refuses, so that such
 * text gets exactly the answer (and message) it always got; it is also the oracle of the property tests.
 */
export function parseWithAst(text: string, maxDepth: number): unknown {
  let document: DocumentNode;
  try {
    document = parse(text, { mode: 'json', ranges: false, tokens: false });
  } catch (error) {
    throw new StrictJsonError(`not valid JSON: ${(error as Error).message}`);
  }
  checkNode(document.body, 0, maxDepth);
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

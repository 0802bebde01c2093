import { el, svg } from './dom.js';
import { client } from './session.js';

/** Spec 2.7 node as `delegation_tree` returns it. */
interface TreeNode {
  readonly agent: string;
  readonly relationship: 'root' | 'sub_agent' | 'call_chain';
  readonly parent_agent?: string;
  readonly tokens?: readonly unknown[];
}

const BOX = { width: 300, height: 46, gapX: 40, gapY: 28 };

/**
 * The delegation tree as an SVG picture (ADR 0040): one box per node (root, `sub_agent`, `call_chain`), its
 * agent and token count, lines from parent to child. Every page of `delegation_tree` is read (the SDK follows
 * the cursor). Agent identifiers are SVG `<text>` content, never markup.
 */
export async function drawTree(missionS256: string): Promise<{ picture: Element; nodes: number }> {
  const nodes: TreeNode[] = [];
  for await (const node of client().delegationTree(missionS256)) nodes.push(node as unknown as TreeNode);
  const children = new Map<string, TreeNode[]>();
  const roots: TreeNode[] = [];
  for (const node of nodes) {
    if (node.parent_agent === undefined) roots.push(node);
    else children.set(node.parent_agent, [...(children.get(node.parent_agent) ?? []), node]);
  }
  // Depth-first rows: a node's children are drawn below it, indented one step.
  const placed: { node: TreeNode; depth: number; row: number; parentRow?: number }[] = [];
  const seen = new Set<TreeNode>();
  const visit = (node: TreeNode, depth: number, parentRow?: number): void => {
    if (seen.has(node)) return;
    seen.add(node);
    const row = placed.length;
    placed.push({ node, depth, row, ...(parentRow !== undefined ? { parentRow } : {}) });
    for (const child of children.get(node.agent) ?? []) visit(child, depth + 1, row);
  };
  for (const root of roots) visit(root, 0);
  for (const node of nodes) visit(node, 0); // a node whose parent is not shown still appears
  const width = Math.max(...placed.map((entry) => entry.depth)) * BOX.gapX + BOX.width + 20;
  const height = placed.length * (BOX.height + BOX.gapY) + 10;
  const x = (depth: number): number => 10 + depth * BOX.gapX;
  const y = (row: number): number => 10 + row * (BOX.height + BOX.gapY);
  const picture = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-labelledby': 'tree-title' }, svg('title', { id: 'tree-title' }, `Delegation tree with ${placed.length} node${placed.length === 1 ? '' : 's'}`));
  for (const entry of placed) {
    if (entry.parentRow === undefined) continue;
    const parent = placed[entry.parentRow]!;
    const px = x(parent.depth) + 14;
    picture.append(svg('line', { x1: px, y1: y(parent.row) + BOX.height, x2: px, y2: y(entry.row) + BOX.height / 2 }), svg('line', { x1: px, y1: y(entry.row) + BOX.height / 2, x2: x(entry.depth), y2: y(entry.row) + BOX.height / 2 }));
  }
  for (const { node, depth, row } of placed) {
    const tokens = node.tokens?.length;
    picture.append(
      svg(
        'g',
        { class: `node node-${node.relationship}`, 'data-agent': node.agent },
        svg('rect', { x: x(depth), y: y(row), width: BOX.width, height: BOX.height, rx: 6 }),
        svg('text', { x: x(depth) + 10, y: y(row) + 19 }, node.agent),
        svg('text', { x: x(depth) + 10, y: y(row) + 37 }, `${node.relationship}${tokens !== undefined ? ` · ${tokens} token${tokens === 1 ? '' : 's'}` : ''}`),
      ),
    );
  }
  return { picture: el('figure', {}, picture), nodes: placed.length };
}

import { el, svg } from './dom.js';

/** One node as `POST /missions/tree` reports it (DESIGN 2.1, MissionTreeNodeView). */
export interface TreeNode {
  readonly mission_id: string;
  readonly parent_id?: string;
  readonly client_id: string;
  readonly state: string;
  readonly depth: number;
  readonly cascade_mode?: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly fanout: readonly { readonly parent_entry: number; readonly active_children: number; readonly max_children?: number }[];
}

export interface MissionTree {
  readonly mission_id: string;
  readonly observed_at: string;
  readonly nodes: readonly TreeNode[];
  readonly truncated: boolean;
}

const BOX = { width: 360, height: 64, gapX: 44, gapY: 22 };

/** `entry 0: 1 of 3 children active` per delegable entry (spec 2.4 / 2.6 fan-out counters). */
export function fanOutText(node: TreeNode): string {
  if (node.fanout.length === 0) return 'no delegable entry';
  return node.fanout
    .map((counter) =>
      counter.max_children !== undefined
        ? `entry ${counter.parent_entry}: ${counter.active_children} of ${counter.max_children} children active`
        : `entry ${counter.parent_entry}: ${counter.active_children} ${counter.active_children === 1 ? 'child' : 'children'} active`,
    )
    .join(' · ');
}

export function shortId(missionId: string): string {
  return missionId.length > 14 ? `${missionId.slice(0, 12)}…` : missionId;
}

/**
 * The delegation tree as an SVG picture (ADR 0042): one box per mission — its client, its lineage state as a word
 * and a colour (active, suspended, cascaded, revoked, expired, …), its id and depth, and the fan-out counters of
 * its delegable entries — with lines from parent to child, children indented below their parent. Client ids are
 * SVG `<text>` content, never markup.
 */
export function drawTree(tree: MissionTree): Element {
  const children = new Map<string, TreeNode[]>();
  for (const node of tree.nodes) {
    if (node.parent_id !== undefined) children.set(node.parent_id, [...(children.get(node.parent_id) ?? []), node]);
  }
  const placed: { node: TreeNode; level: number; row: number; parentRow?: number }[] = [];
  const seen = new Set<string>();
  const visit = (node: TreeNode, level: number, parentRow?: number): void => {
    if (seen.has(node.mission_id)) return;
    seen.add(node.mission_id);
    const row = placed.length;
    placed.push({ node, level, row, ...(parentRow !== undefined ? { parentRow } : {}) });
    for (const child of children.get(node.mission_id) ?? []) visit(child, level + 1, row);
  };
  for (const node of tree.nodes) visit(node, 0); // the requested mission comes first (breadth-first answer)
  const width = Math.max(0, ...placed.map((entry) => entry.level)) * BOX.gapX + BOX.width + 20;
  const height = placed.length * (BOX.height + BOX.gapY) + 10;
  const x = (level: number): number => 10 + level * BOX.gapX;
  const y = (row: number): number => 10 + row * (BOX.height + BOX.gapY);
  const picture = svg(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-labelledby': 'tree-title' },
    svg('title', { id: 'tree-title' }, `Delegation tree with ${placed.length} mission${placed.length === 1 ? '' : 's'}`),
  );
  for (const entry of placed) {
    if (entry.parentRow === undefined) continue;
    const parent = placed[entry.parentRow]!;
    const px = x(parent.level) + 14;
    const cy = y(entry.row) + BOX.height / 2;
    picture.append(svg('line', { x1: px, y1: y(parent.row) + BOX.height, x2: px, y2: cy }), svg('line', { x1: px, y1: cy, x2: x(entry.level), y2: cy }));
  }
  for (const { node, level, row } of placed) {
    picture.append(
      svg(
        'g',
        { class: `node state-${node.state}`, 'data-mission': node.mission_id, 'data-state': node.state },
        svg('rect', { x: x(level), y: y(row), width: BOX.width, height: BOX.height, rx: 6 }),
        svg('text', { x: x(level) + 10, y: y(row) + 18, class: 'client' }, node.client_id),
        svg('text', { x: x(level) + BOX.width - 10, y: y(row) + 18, class: 'state', 'text-anchor': 'end' }, node.state),
        svg('text', { x: x(level) + 10, y: y(row) + 37 }, `${shortId(node.mission_id)} · depth ${node.depth}${node.cascade_mode !== undefined ? ` · cascade ${node.cascade_mode}` : ''}`),
        svg('text', { x: x(level) + 10, y: y(row) + 55, class: 'fanout' }, fanOutText(node)),
      ),
    );
  }
  return el('figure', {}, picture);
}

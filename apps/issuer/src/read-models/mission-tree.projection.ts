import { formatPosition, type Position, type RecordedEvent } from '@mission/event-store';
import type { Projection } from '@mission/es-kit';
import {
  isTerminalMissionState, MISSION_LIFECYCLE_STATES, reportGeneration, terminalEffectiveAt,
  type CascadeMode, type ChildMissionAttachedData, type ChildMissionDetachedData, type MissionCreatedData, type MissionLifecycleState, type ReportedState,
} from '@mission/issuer-domain';

/** DESIGN 2.1 `/missions/tree`: the most nodes one answer carries; beyond it the answer says `truncated`. */
export const MAX_TREE_NODES = 10_000;

/** Spec 2.4 / 2.6 fan-out counters of one delegable entry (one carrying `delegation.children`). */
export interface FanOutCounter {
  readonly parent_entry: number;
  /** Non-terminal children drawing on the entry, counted as creation enforces `max_children` (spec 2.4 rule 2). */
  readonly active_children: number;
  readonly max_children?: number;
}

/** One mission of a delegation tree as `/missions/tree` reports it. */
export interface MissionTreeNodeView {
  readonly mission_id: string;
  /** Absent for a root mission. */
  readonly parent_id?: string;
  readonly client_id: string;
  /** The lineage state at `observed_at` (spec 3.2, 4.3). */
  readonly state: MissionLifecycleState;
  /** Spec 2.3 `parent.depth`: 0 for a root mission. */
  readonly depth: number;
  /** Child Missions only (spec 3.3). */
  readonly cascade_mode?: CascadeMode;
  readonly created_at: string;
  readonly expires_at: string;
  readonly fanout: readonly FanOutCounter[];
}

export interface MissionTreeView {
  /** Breadth-first from the requested mission (generation order), children in attachment order. */
  readonly nodes: readonly MissionTreeNodeView[];
  readonly truncated: boolean;
}

interface Attachment {
  readonly entries: readonly number[];
  terminal: boolean;
}

interface TreeNode {
  readonly missionId: string;
  readonly parentId: string | undefined;
  readonly clientId: string;
  lifecycle: MissionLifecycleState;
  readonly expiresAt: number;
  /** A recorded terminal state: when it took effect (decision 0020). */
  terminalAt: number | undefined;
  readonly depth: number;
  readonly cascadeMode: CascadeMode | undefined;
  readonly createdAt: string;
  /** Entries carrying `delegation.children`, with their `max_children`. */
  readonly delegable: readonly { readonly index: number; readonly maxChildren: number | undefined }[];
  /** Children in the order they joined: attached on this stream, or created naming this mission as parent. */
  readonly childIds: Set<string>;
  /** `ChildMissionAttached` / `ChildMissionDetached` on this (parent) stream, by child id. */
  readonly attachments: Map<string, Attachment>;
}

const STREAM_PREFIX = 'mission-';
const LIFECYCLE_STATES: ReadonlySet<string> = new Set(MISSION_LIFECYCLE_STATES);

/**
 * Read model of the delegation trees (DESIGN 2.1 `/missions/tree`): one lean node per mission, keyed by
 * mission id, rebuilt from the `mission` category on every start. It follows the mission decider's
 * `evolve` for what it keeps — creation, the state of every lifecycle transition (`data.state`),
 * attachment and detachment on the parent's stream — so its counters are the ones creation enforces.
 * States are reported as lineage states computed at query time with the domain's `reportGeneration`
 * (a recorded terminal state as recorded, a terminal ancestor → `cascaded` unless the node's own expiry
 * came first, own expiry, a suspended ancestor → `suspended`), like MissionLineage-based answers, but
 * from this model: a tree may lag the store by what the runner has not applied yet.
 */
export class MissionTreeProjection implements Projection {
  readonly name = 'mission_tree';
  readonly categories = ['mission'];
  private nodes = new Map<string, TreeNode>();
  private applied: { position: Position; created: Date } | undefined;

  apply(event: RecordedEvent): void {
    this.applied = { position: event.position, created: event.created };
    if (!event.streamName.startsWith(STREAM_PREFIX)) return;
    const id = event.streamName.slice(STREAM_PREFIX.length);
    if (event.type === 'MissionCreated') return this.created(id, event.data as unknown as MissionCreatedData);
    const node = this.nodes.get(id);
    // As `evolve`: events of a stream without a mission change nothing.
    if (!node) return;
    if (event.type === 'ChildMissionAttached') return this.attached(node, event.data as unknown as ChildMissionAttachedData);
    if (event.type === 'ChildMissionDetached') return this.detached(node, event.data as unknown as ChildMissionDetachedData);
    // Every other event on a mission stream is a lifecycle transition carrying the new state.
    const state = event.data['state'];
    if (typeof state !== 'string' || !LIFECYCLE_STATES.has(state)) return;
    node.lifecycle = state as MissionLifecycleState;
    node.terminalAt = isTerminalMissionState(node.lifecycle) ? terminalEffectiveAt(event.type, event.data)?.getTime() ?? event.created.getTime() : undefined;
  }

  reset(): void {
    this.nodes = new Map();
    this.applied = undefined;
  }

  get size(): number {
    return this.nodes.size;
  }

  get appliedPosition(): Position | undefined {
    return this.applied?.position;
  }

  /** The last event applied: its global position (`<commit>/<prepare>`) and when it was recorded. */
  get appliedThrough(): { readonly position: string; readonly recordedAt: string } | undefined {
    return this.applied && { position: formatPosition(this.applied.position), recordedAt: this.applied.created.toISOString() };
  }

  /**
   * The delegation tree under `missionId` (itself included) at `now`, or `undefined` when this model does
   * not know the mission. At most `maxNodes` nodes; `truncated` says whether more exist.
   */
  tree(missionId: string, now: Date, maxNodes = MAX_TREE_NODES): MissionTreeView | undefined {
    const root = this.nodes.get(missionId);
    if (!root) return undefined;
    const at = now.getTime();
    const nodes: MissionTreeNodeView[] = [];
    const reported = new Map<string, ReportedState>([[root.missionId, this.reportedStateOf(root, at)]]);
    const queue: TreeNode[] = [root];
    let truncated = false;
    for (let next = 0; next < queue.length; next++) {
      if (nodes.length >= maxNodes) {
        truncated = true;
        break;
      }
      const node = queue[next]!;
      const state = reported.get(node.missionId)!;
      nodes.push(this.view(node, state.state));
      for (const childId of node.childIds) {
        const child = this.nodes.get(childId);
        // A child attached but not yet created has no record to show; it still counts in `fanout`.
        if (!child || reported.has(childId)) continue;
        reported.set(childId, reportGeneration(child, state, at));
        queue.push(child);
      }
    }
    return { nodes, truncated };
  }

  private created(id: string, data: MissionCreatedData): void {
    if (this.nodes.has(id)) return;
    const parent = data.parent;
    const node: TreeNode = {
      missionId: id,
      parentId: parent?.id,
      clientId: data.client_id,
      lifecycle: data.state,
      expiresAt: Date.parse(data.expires_at),
      terminalAt: undefined,
      depth: parent?.depth ?? 0,
      cascadeMode: parent?.cascade_mode,
      createdAt: data.occurred_at,
      delegable: data.authority_set.flatMap((entry, index) =>
        entry.delegation?.children !== undefined ? [{ index, maxChildren: entry.delegation.children.max_children }] : [],
      ),
      childIds: new Set(),
      attachments: new Map(),
    };
    this.nodes.set(id, node);
    if (parent) this.nodes.get(parent.id)?.childIds.add(id);
  }

  private attached(node: TreeNode, data: ChildMissionAttachedData): void {
    node.childIds.add(data.child_mission_id);
    node.attachments.set(data.child_mission_id, { entries: [...data.parent_entry_indexes], terminal: false });
  }

  private detached(node: TreeNode, data: ChildMissionDetachedData): void {
    const attachment = node.attachments.get(data.child_mission_id);
    if (attachment) attachment.terminal = true;
  }

  /** The lineage state of a node from the top of its known lineage down. */
  private reportedStateOf(node: TreeNode, at: number): ReportedState {
    const lineage: TreeNode[] = [node];
    for (let current = node; current.parentId !== undefined && lineage.length <= node.depth; ) {
      const parent = this.nodes.get(current.parentId);
      // A parent this model does not know counts as a terminal one (as reportedState does).
      if (!parent) return reportGeneration(node, { state: 'revoked' }, at);
      lineage.push(parent);
      current = parent;
    }
    let state: ReportedState | undefined;
    for (let i = lineage.length - 1; i >= 0; i--) state = reportGeneration(lineage[i]!, state, at);
    return state!;
  }

  private view(node: TreeNode, state: MissionLifecycleState): MissionTreeNodeView {
    return {
      mission_id: node.missionId,
      ...(node.parentId !== undefined ? { parent_id: node.parentId } : {}),
      client_id: node.clientId,
      state,
      depth: node.depth,
      ...(node.cascadeMode !== undefined ? { cascade_mode: node.cascadeMode } : {}),
      created_at: node.createdAt,
      expires_at: new Date(node.expiresAt).toISOString(),
      fanout: node.delegable.map(({ index, maxChildren }) => ({
        parent_entry: index,
        active_children: activeChildren(node, index),
        ...(maxChildren !== undefined ? { max_children: maxChildren } : {}),
      })),
    };
  }
}

/** `activeChildCount`: non-terminal attachments drawing on the entry. */
function activeChildren(node: TreeNode, index: number): number {
  let count = 0;
  for (const attachment of node.attachments.values()) if (!attachment.terminal && attachment.entries.includes(index)) count += 1;
  return count;
}

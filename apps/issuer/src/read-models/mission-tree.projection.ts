import { formatPosition, type Position, type RecordedEvent } from '@mission/event-store';
import { StoredModelProjection } from '@mission/es-kit';
import {
  isTerminalMissionState, MISSION_LIFECYCLE_STATES, reportGeneration, terminalEffectiveAt,
  type CascadeMode, type ChildMissionAttachedData, type ChildMissionDetachedData, type MissionCreatedData, type MissionLifecycleState, type ReportedState,
} from '@mission/issuer-domain';
import { MissionTreeStore, type TreeChild, type TreeNode } from './mission-tree.store.js';

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

const STREAM_PREFIX = 'mission-';
const LIFECYCLE_STATES: ReadonlySet<string> = new Set(MISSION_LIFECYCLE_STATES);

/**
 * Read model of the delegation trees (DESIGN 2.1 `/missions/tree`): one lean row per mission, keyed by
 * mission id, kept in a SQLite file of its own and resumed from its stored position at start (ADR 0086). It follows the mission decider's
 * `evolve` for what it keeps — creation, the state of every lifecycle transition (`data.state`),
 * attachment and detachment on the parent's stream — so its counters are the ones creation enforces.
 * States are reported as lineage states computed at query time with the domain's `reportGeneration`
 * (a recorded terminal state as recorded, a terminal ancestor → `cascaded` unless the node's own expiry
 * came first, own expiry, a suspended ancestor → `suspended`), like MissionLineage-based answers, but
 * from this model: a tree may lag the store by what the runner has not applied yet.
 */
export class MissionTreeProjection extends StoredModelProjection<MissionTreeStore> {
  readonly name = 'mission_tree';
  readonly categories = ['mission'];

  /** `store`: the model's storage (ADR 0086); an in-memory SQLite database unless given one. */
  constructor(store: MissionTreeStore = MissionTreeStore.open(':memory:')) {
    super(store);
  }

  apply(event: RecordedEvent): void {
    this.model.appliedEvent({ position: event.position, created: event.created });
    if (!event.streamName.startsWith(STREAM_PREFIX)) return;
    const id = event.streamName.slice(STREAM_PREFIX.length);
    if (event.type === 'MissionCreated') return this.created(id, event.data as unknown as MissionCreatedData);
    // As `evolve`: events of a stream without a mission change nothing (the store's writes match no node then).
    if (event.type === 'ChildMissionAttached') {
      const data = event.data as unknown as ChildMissionAttachedData;
      return this.model.attached(id, data.child_mission_id, data.parent_entry_indexes);
    }
    if (event.type === 'ChildMissionDetached') return this.model.detached(id, (event.data as unknown as ChildMissionDetachedData).child_mission_id);
    // Every other event on a mission stream is a lifecycle transition carrying the new state.
    const state = event.data['state'];
    if (typeof state !== 'string' || !LIFECYCLE_STATES.has(state)) return;
    const lifecycle = state as MissionLifecycleState;
    const terminalAt = isTerminalMissionState(lifecycle) ? terminalEffectiveAt(event.type, event.data)?.getTime() ?? event.created.getTime() : undefined;
    this.model.lifecycleChanged(id, lifecycle, terminalAt);
  }

  /** Missions in the model. */
  get size(): number {
    return this.model.nodeCount;
  }

  get appliedPosition(): Position | undefined {
    return this.model.appliedThrough?.position;
  }

  /** The last event applied: its global position (`<commit>/<prepare>`) and when it was recorded. */
  get appliedThrough(): { readonly position: string; readonly recordedAt: string } | undefined {
    const applied = this.model.appliedThrough;
    return applied && { position: formatPosition(applied.position), recordedAt: applied.created.toISOString() };
  }

  /**
   * The delegation tree under `missionId` (itself included) at `now`, or `undefined` when this model does
   * not know the mission. At most `maxNodes` nodes; `truncated` says whether more exist.
   */
  tree(missionId: string, now: Date, maxNodes = MAX_TREE_NODES): MissionTreeView | undefined {
    const root = this.model.node(missionId);
    if (!root) return undefined;
    const at = now.getTime();
    const nodes: MissionTreeNodeView[] = [];
    const reported = new Map<string, ReportedState>([[root.missionId, this.reportedStateOf(root, at)]]);
    // Breadth-first, one generation at a time: the children of a whole generation come from one query.
    let generation: TreeNode[] = [root];
    while (generation.length > 0) {
      const shown = generation.slice(0, Math.max(0, maxNodes - nodes.length));
      const children = this.model.childrenOf(shown.map((node) => node.missionId));
      const next: TreeNode[] = [];
      for (const node of shown) {
        const state = reported.get(node.missionId)!;
        const own = children.get(node.missionId) ?? [];
        nodes.push(view(node, state.state, own));
        for (const child of own) {
          // A child attached but not yet created has no record to show; it still counts in `fanout`.
          if (child.node === undefined || reported.has(child.childId)) continue;
          reported.set(child.childId, reportGeneration(child.node, state, at));
          next.push(child.node);
        }
      }
      if (shown.length < generation.length || (nodes.length >= maxNodes && next.length > 0)) return { nodes, truncated: true };
      generation = next;
    }
    return { nodes, truncated: false };
  }

  private created(id: string, data: MissionCreatedData): void {
    const parent = data.parent;
    this.model.created({
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
    });
  }

  /** The lineage state of a node from the top of its known lineage down. */
  private reportedStateOf(node: TreeNode, at: number): ReportedState {
    const lineage: TreeNode[] = [node];
    for (let current = node; current.parentId !== undefined && lineage.length <= node.depth; ) {
      const parent = this.model.node(current.parentId);
      // A parent this model does not know counts as a terminal one (as reportedState does).
      if (!parent) return reportGeneration(node, { state: 'revoked' }, at);
      lineage.push(parent);
      current = parent;
    }
    let state: ReportedState | undefined;
    for (let i = lineage.length - 1; i >= 0; i--) state = reportGeneration(lineage[i]!, state, at);
    return state!;
  }
}

function view(node: TreeNode, state: MissionLifecycleState, children: readonly TreeChild[]): MissionTreeNodeView {
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
      active_children: activeChildren(children, index),
      ...(maxChildren !== undefined ? { max_children: maxChildren } : {}),
    })),
  };
}

/** `activeChildCount`: non-terminal attachments drawing on the entry. */
function activeChildren(children: readonly TreeChild[], index: number): number {
  let count = 0;
  for (const child of children) if (child.entries !== undefined && !child.terminal && child.entries.includes(index)) count += 1;
  return count;
}

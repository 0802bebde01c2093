import type { RecordedEvent } from '@mission/event-store';
import {
  authorityHash, grantIdFromBytes, lineageState, missionDecider, missionExists, missionIdFromBytes, parseAuthorizationDetails,
  type AuthoritySet, type ChildEvidence, type Mission, type MissionCommand, type MissionLifecycleState, type MissionState,
} from '@mission/issuer-domain';
import { MissionTreeProjection } from '../read-models/mission-tree.projection.js';

export const ISSUER = 'https://issuer.example';
export const T0 = new Date('2026-11-22T09:00:00.000Z');
export const END = new Date('2026-11-22T17:00:00.000Z');
export const NOW = new Date('2026-11-22T10:00:00.000Z');
export const actor = { id: 'demo-agent', role: 'client' };

export const DELEGABLE: AuthoritySet = parseAuthorizationDetails([
  { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { children: { max_children: 2, max_child_depth: 3 } } },
  { type: 'mission_resource_access', resource: 'https://erp.example.com/ledger', actions: ['ledger.read'] },
  { type: 'mission_resource_access', resource: 'https://erp.example.com/files', actions: ['files.read'], delegation: { children: {} } },
]);
export const LEAF: AuthoritySet = parseAuthorizationDetails([{ type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'] }]);
/** DELEGABLE's entry 0 one generation down (spec 2.4: max_child_depth reduced by one): a child that may itself delegate. */
export const CHILD_DELEGABLE: AuthoritySet = parseAuthorizationDetails([
  { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { children: { max_children: 2, max_child_depth: 2 } } },
]);
/** Justified by DELEGABLE's entries 0 and 2. */
export const TWO_ENTRY_LEAF: AuthoritySet = parseAuthorizationDetails([
  { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'] },
  { type: 'mission_resource_access', resource: 'https://erp.example.com/files', actions: ['files.read'] },
]);

let counter = 0;
export const newId = (): string => missionIdFromBytes(Uint8Array.from({ length: 16 }, (_, i) => (i === 0 ? ++counter : 9)));

/**
 * Test helper (specs only: uses jest's `expect`). Decides commands with the mission decider and feeds the recorded
 * events to the projection, folding the same events into missions; `events` keeps them in order for replays.
 */
export class Feed {
  readonly missions = new Map<string, MissionState>();
  readonly events: RecordedEvent[] = [];
  private position = 0n;
  private readonly revisions = new Map<string, bigint>();

  constructor(readonly projection: MissionTreeProjection = new MissionTreeProjection()) {}

  run(missionId: string, command: MissionCommand): void {
    const state = this.missions.get(missionId) ?? missionDecider.initialState;
    let next = state;
    for (const event of missionDecider.decide(command, state)) {
      next = missionDecider.evolve(next, event);
      const revision = (this.revisions.get(missionId) ?? -1n) + 1n;
      this.revisions.set(missionId, revision);
      this.position += 1n;
      const recorded: RecordedEvent = {
        streamName: `mission-${missionId}`, revision, position: { commit: this.position, prepare: this.position }, id: `evt-${this.position}`,
        type: event.type, data: event.data as never, metadata: {}, created: NOW,
      };
      this.events.push(recorded);
      this.projection.apply(recorded);
    }
    this.missions.set(missionId, next);
  }

  root(set: AuthoritySet = DELEGABLE, expiresAt = END): string {
    const id = newId();
    this.run(id, {
      type: 'CreateMission', missionId: id, issuer: ISSUER, clientId: 'demo-agent', authoritySet: set, authorityHash: authorityHash(ISSUER, set),
      intent: { goal: 'Reconcile invoices', resources: [], expires_at: END.toISOString() }, expiresAt, approvedBy: actor, now: T0,
    });
    return id;
  }

  /** Attaches on the parent's stream (entries = justifying parent entries) and creates the child naming the parent. */
  child(parentId: string, entries: number[], options: { clientId?: string; set?: AuthoritySet; expiresAt?: Date; create?: boolean } = {}): string {
    const parent = this.mission(parentId);
    // Spec 1 item 4: a child actor is never its parent's client (a grandchild gets a third agent).
    options = { ...options, clientId: options.clientId ?? (parent.clientId === 'demo-subagent' ? 'demo-worker' : 'demo-subagent') };
    const id = newId();
    const set = options.set ?? LEAF;
    const evidence: ChildEvidence = {
      evidence_id: `evd_${id}`, parent: { id: parentId, issuer: ISSUER, authority_hash: parent.authorityHash },
      child: { id, issuer: ISSUER, authority_hash: authorityHash(ISSUER, set) }, child_actor: { sub: options.clientId ?? 'demo-subagent' },
      requested_by: parent.clientId, attenuation: { result: 'strict_subset', checks: ['strict_subset'] }, cascade_mode: 'immediate', decision: 'created', created_at: T0.toISOString(),
    };
    this.run(parentId, {
      type: 'AttachChild', childMissionId: id, childClientId: options.clientId ?? 'demo-subagent', parentEntryIndexes: entries, actor, now: T0,
      grantId: grantIdFromBytes(Uint8Array.from({ length: 16 }, (_, i) => (i === 0 ? counter : 3))), grantExpiresAt: new Date(T0.getTime() + 60_000), cascadeMode: 'immediate', evidence,
      child: { authoritySet: set, expiresAt: options.expiresAt ?? parent.expiresAt, intentResources: [] },
    });
    if (options.create === false) return id;
    this.run(id, {
      type: 'CreateMission', missionId: id, issuer: ISSUER, clientId: options.clientId ?? 'demo-subagent', authoritySet: set, authorityHash: authorityHash(ISSUER, set),
      intent: { goal: 'Read invoices', resources: [], expires_at: END.toISOString() }, expiresAt: options.expiresAt ?? END, approvedBy: actor, now: T0,
      parent: { id: parentId, issuer: ISSUER, authority_hash: parent.authorityHash, depth: (parent.parent?.depth ?? 0) + 1, cascade_mode: 'immediate', created_at: T0.toISOString() },
      parentBounds: { expiresAt: parent.expiresAt, intentResources: parent.intent.resources },
    });
    return id;
  }

  lifecycle(missionId: string, operation: 'suspend' | 'resume' | 'revoke' | 'complete', now = T0): void {
    this.run(missionId, { type: 'ChangeMissionLifecycle', operation, actor, reason: 'test', now });
  }

  mission(missionId: string): Mission {
    const state = this.missions.get(missionId);
    if (!state || !missionExists(state)) throw new Error(`no mission ${missionId}`);
    return state;
  }

  /** The domain's lineageState for a mission, from the folded missions. */
  domainState(missionId: string, now: Date): MissionLifecycleState {
    const mission = this.mission(missionId);
    const ancestors: Mission[] = [];
    for (let next = mission.parent?.id; next !== undefined; next = this.mission(next).parent?.id) ancestors.push(this.mission(next));
    return lineageState(mission, ancestors, now);
  }

  states(rootId: string, now = NOW): Record<string, MissionLifecycleState> {
    return Object.fromEntries(this.projection.tree(rootId, now)!.nodes.map((node) => [node.mission_id, node.state]));
  }

  /** Every node's state equals the domain's lineageState. */
  expectAgreesWithDomain(rootId: string, now = NOW): void {
    for (const node of this.projection.tree(rootId, now)!.nodes) expect([node.mission_id, node.state]).toEqual([node.mission_id, this.domainState(node.mission_id, now)]);
  }
}


/**
 * Builds the tree that tools/bench/issuer/cascade.ts revokes: a root over HTTP, REAL_CHILDREN children
 * and their grandchildren over HTTP (they hold real refresh tokens), and the rest SEEDED straight into the
 * store with the events the service writes for a creation and a redemption.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { EventStore } from '@mission/event-store';
import { aggregateStream, decideAndAppend, handleCommand, type AggregateState, type CommandContext } from '@mission/es-kit';
import {
  activeChildCount, authorityHash, delegationIdFromBytes, grantDecider, grantIdFromBytes, grantStreamName, grantTokenFromBytes, grantTokenHash,
  missionDecider, missionExists, missionIdFromBytes, missionStreamName, parseAuthorizationDetails,
  type Actor, type AuthoritySet, type ChildEvidence, type MissionEvent, type MissionState,
} from '@mission/issuer-domain';
import { DpopKey, type ClientKey } from '@mission/mission-client';
import { CHILD_DETAILS, LEAF_DETAILS, obtainRootMission, redeemChild, requestChild, ROOT_DETAILS, type MissionHolder } from './flows.js';

/** Children created over HTTP per tree; each gets GRANDCHILDREN_PER_CHILD grandchildren over HTTP. */
export const REAL_CHILDREN = 2;
export const GRANDCHILDREN_PER_CHILD = 99;
/** Creations in flight per parent while building the HTTP part (they serialize on the parent's stream). */
const CREATIONS_PER_PARENT = 4;
/** Seeded children whose grandchildren are written at once. */
const SEED_PARALLELISM = 8;
/** A child actor must be another client than its parent's and every ancestor's (spec 2.5 rule 8, issue 11). */
export const CHILD_ACTOR = 'demo-subagent';
export const GRANDCHILD_ACTOR = 'demo-worker';
const ALL_CHECKS = ['parent_match', 'parent_active', 'delegation_permitted', 'child_actor', 'strict_subset', 'fanout', 'policy', 'commit'];
/** The seeded children's parent grant key (spec 2.5 rule 8): the seeded redemptions use another key. */
const SEEDED_PARENT_JKT = createHash('sha256').update('bench seeded parent key').digest('base64url');

export interface Tree {
  readonly httpMs: number;
  readonly seedMs: number;
  readonly root: MissionHolder;
  /** Every descendant with its depth (1 child, 2 grandchild). */
  readonly descendants: ReadonlyMap<string, number>;
  /** The descendants created over HTTP, with their tokens. */
  readonly real: readonly MissionHolder[];
}

export class CascadeTreeBuilder {
  private readonly childSet: AuthoritySet = parseAuthorizationDetails(CHILD_DETAILS);
  private readonly leafSet: AuthoritySet = parseAuthorizationDetails(LEAF_DETAILS);
  private seededKey: DpopKey | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly issuer: string,
    private readonly agent: ClientKey,
    private readonly subagent: ClientKey,
    private readonly worker: ClientKey,
  ) {}

  /** Root over HTTP; REAL_CHILDREN children and their grandchildren over HTTP; the rest seeded. */
  async build(childCount: number): Promise<Tree> {
    const httpStarted = Date.now();
    const root = await obtainRootMission(this.issuer, this.agent, ROOT_DETAILS);
    const descendants = new Map<string, number>();
    const real: MissionHolder[] = [];
    const realChildren = await this.createOverHttp(root, Math.min(REAL_CHILDREN, childCount), CHILD_DETAILS, this.subagent);
    for (const child of realChildren) descendants.set(child.missionId, 1);
    await Promise.all(
      realChildren.map(async (child) => {
        for (const grandchild of await this.createOverHttp(child, GRANDCHILDREN_PER_CHILD, LEAF_DETAILS, this.worker)) {
          descendants.set(grandchild.missionId, 2);
          real.push(grandchild);
        }
      }),
    );
    real.push(...realChildren); // grandchildren first: (a) probes with one of them
    const httpMs = Date.now() - httpStarted;
    const seedStarted = Date.now();
    const seededChildren = await this.seed(root.missionId, this.agent.clientId, CHILD_ACTOR, childCount - realChildren.length, this.childSet, 1);
    for (const id of seededChildren) descendants.set(id, 1);
    let next = 0;
    await Promise.all(
      Array.from({ length: SEED_PARALLELISM }, async () => {
        while (next < seededChildren.length) {
          const parentId = seededChildren[next++]!;
          for (const id of await this.seed(parentId, CHILD_ACTOR, GRANDCHILD_ACTOR, GRANDCHILDREN_PER_CHILD, this.leafSet, 2)) descendants.set(id, 2);
        }
      }),
    );
    return { httpMs, seedMs: Date.now() - seedStarted, root, descendants, real };
  }

  private async createOverHttp(parent: MissionHolder, count: number, details: unknown, actor: ClientKey): Promise<MissionHolder[]> {
    const created: MissionHolder[] = [];
    await Promise.all(
      Array.from({ length: Math.min(CREATIONS_PER_PARENT, count) }, async () => {
        while (created.length < count) {
          const slot = created.length;
          created.length = slot + 1; // reserve the slot before awaiting
          const requestUri = await requestChild(this.issuer, parent, actor.clientId, details);
          created[slot] = await redeemChild(this.issuer, actor, await DpopKey.generate(), requestUri);
        }
      }),
    );
    return created;
  }

  /**
   * Writes `count` children of `parentId` as the child creation and redemption use cases do
   * (apps/issuer/src/use-cases/create-child-mission, use-cases/redeem-child-grant):
   * AttachChild on the parent's stream at the revision read, CreateMission on the child's stream, then its
   * creation grant issued and redeemed — so no grant lapses and no slot is released behind the bench.
   */
  private async seed(parentId: string, requestedBy: string, childActor: string, count: number, authoritySet: AuthoritySet, depth: number): Promise<string[]> {
    this.seededKey ??= await DpopKey.generate();
    const parentStream = missionStreamName(parentId);
    let parent = await aggregateStream(this.store, parentStream, missionDecider);
    const ids: string[] = [];
    const childHash = authorityHash(this.issuer, authoritySet);
    for (let i = 0; i < count; i++) {
      const state = parent.state;
      if (!missionExists(state)) throw new Error(`parent ${parentId} does not exist`);
      const now = new Date();
      const childId = missionIdFromBytes(randomBytes(16));
      const evidenceId = delegationIdFromBytes(randomBytes(16));
      const grantId = grantIdFromBytes(randomBytes(16));
      const grantHash = grantTokenHash(grantTokenFromBytes(grantId, randomBytes(32)));
      const grantExpiresAt = new Date(now.getTime() + 300_000);
      const expiresAt = state.expiresAt.toISOString();
      const actor: Actor = { id: requestedBy, role: 'client' };
      const context: CommandContext = { correlationId: randomUUID(), causationId: `par:child:${evidenceId}`, actor, now };
      const evidence: ChildEvidence = {
        evidence_id: evidenceId,
        parent: { id: parentId, issuer: this.issuer, authority_hash: state.authorityHash },
        child: { id: childId, issuer: this.issuer, authority_hash: childHash },
        child_actor: { sub: childActor },
        requested_by: requestedBy,
        attenuation: {
          result: 'strict_subset', checks: ALL_CHECKS, requested_authority: authoritySet, requested_expires_at: expiresAt,
          approved_authority: authoritySet, justified_by: [0], approved_expires_at: expiresAt,
        },
        fanout: [{ parent_entry: 0, active_children: activeChildCount(state, 0) + 1 }],
        cascade_mode: 'immediate',
        decision: 'created',
        approval_basis: 'policy:parent_authority',
        created_at: now.toISOString(),
      };
      await decideAndAppend(this.store, parentStream, missionDecider, parent, {
        type: 'AttachChild', childMissionId: childId, childClientId: childActor, parentEntryIndexes: [0], actor, now, grantId, grantExpiresAt, cascadeMode: 'immediate', evidence,
        child: { authoritySet, expiresAt: state.expiresAt, intentResources: state.intent.resources },
      }, context, { hashChain: true });
      parent = await this.catchUp(parentStream, parent);
      await handleCommand(this.store, missionStreamName(childId), missionDecider, {
        type: 'CreateMission', missionId: childId, issuer: this.issuer, clientId: childActor, authoritySet, authorityHash: childHash,
        intent: { goal: 'benchmark child', resources: [...state.intent.resources], expires_at: expiresAt }, expiresAt: state.expiresAt,
        parentBounds: { expiresAt: state.expiresAt, intentResources: state.intent.resources },
        approvedBy: { id: 'policy:parent_authority', role: 'policy' }, now,
        parent: { id: parentId, issuer: this.issuer, authority_hash: state.authorityHash, depth, delegation_id: evidenceId, cascade_mode: 'immediate', created_at: now.toISOString() },
        child: { actor: { sub: childActor }, fanout: evidence.fanout! },
      }, context, { hashChain: true });
      await handleCommand(this.store, grantStreamName(grantId), grantDecider, {
        type: 'IssueChildGrant', grantId, missionId: childId, parentMissionId: parentId, clientId: childActor, grantHash, lineageJkts: [SEEDED_PARENT_JKT], expiresAt: grantExpiresAt, now,
      }, context);
      await handleCommand(this.store, grantStreamName(grantId), grantDecider, {
        type: 'RedeemChildGrant', grantHash, clientId: childActor, dpopJkt: this.seededKey.jkt, refreshTokenHash: grantTokenHash(grantTokenFromBytes(grantId, randomBytes(32))), now,
      }, { correlationId: randomUUID(), causationId: `token:${grantId}`, actor: { id: childActor, role: 'client' }, now });
      ids.push(childId);
    }
    return ids;
  }

  /** The parent's state after our own append: read on from the revision we had (the hash chain needs the last event). */
  private async catchUp(stream: string, current: AggregateState<MissionState>): Promise<AggregateState<MissionState>> {
    let { state, revision, lastEvent } = current;
    for await (const recorded of this.store.readStream(stream, { fromRevision: revision === 'no_stream' ? 'start' : revision + 1n })) {
      state = missionDecider.evolve(state, recorded as unknown as MissionEvent);
      revision = recorded.revision;
      lastEvent = recorded;
    }
    return { state, revision, ...(lastEvent ? { lastEvent } : {}) };
  }
}

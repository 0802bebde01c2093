import { randomBytes } from 'node:crypto';
import type { EventData, EventStore, JsonObject, RecordedEvent } from '@mission/event-store';
import { aggregateStream, eventHash, genesisHash, handleCommand, metadataFor, PREV_HASH, type AggregateState, type CommandContext } from '@mission/es-kit';
import {
  authorityHash,
  grantDecider,
  grantIdFromBytes,
  grantStreamName,
  grantTokenFromBytes,
  grantTokenHash,
  missionDecider,
  missionIdFromBytes,
  missionStreamName,
  type AttachChild,
  type AuthoritySet,
  type ChildEvidence,
  type ChildrenPolicy,
  type MissionCommand,
  type MissionEvent,
  type MissionState,
} from '@mission/issuer-domain';

/**
 * Missions and Child Missions written through the deciders onto a store (the attachment, the child's own stream and
 * its creation grant, as spec 4.1 writes them), a domain clock that can be moved, and readers of what the background
 * work recorded: the fixtures of the Child Missions process managers' specs (background/*.process-manager.spec.ts).
 */

export const ISSUER = 'https://issuer.example';
export const T0 = new Date('2026-11-22T10:00:00.000Z');
export const EXPIRES_AT = new Date(T0.getTime() + 8 * 3600_000);
export const CLIENT = { id: 'agent-a', role: 'client' };
export const APPROVER = { id: 'alice', role: 'person' };
export const GRANT_TTL_MS = 60_000;
export const FAST_RETRY = { initialDelayMs: 10, maxDelayMs: 20 };

/** Domain time: starts at T0, runs with the wall clock, and can be moved forward. */
export class TestClock {
  private startedAt = Date.now();
  private offset = 0;
  readonly now = (): Date => new Date(T0.getTime() + (Date.now() - this.startedAt) + this.offset);
  advance(ms: number): void {
    this.offset += ms;
  }
  /** Back to T0 now (each test starts there). */
  reset(): void {
    this.startedAt = Date.now();
    this.offset = 0;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(everyMs);
  }
}

export function entrySet(children?: ChildrenPolicy): AuthoritySet {
  return [
    {
      type: 'mission_resource_access',
      resource: 'https://erp.example.com/invoices',
      actions: ['invoices.read'],
      ...(children ? { delegation: { children } } : {}),
    },
  ];
}

/** The parent grant's key, as a creation grant records it (spec 2.5 rule 8); the tests redeem with other keys. */
export const PARENT_GRANT_JKT = 'A'.repeat(43);

export interface Node {
  readonly id: string;
  readonly set: AuthoritySet;
  readonly hash: string;
  /** 0 for a root. */
  readonly depth: number;
}

export interface ChildNode extends Node {
  readonly parentId: string;
  readonly clientId: string;
  readonly grantId: string;
  readonly grantToken: string;
}

export interface ChildOptions {
  /** Write the child's own stream (default true); false = a crash between attachment and creation. */
  readonly createStream?: boolean;
  /** Issue the creation grant (default true). */
  readonly issueGrant?: boolean;
}

let childCounter = 0;

export class Missions {
  constructor(
    private readonly store: () => EventStore,
    private readonly clock: TestClock,
  ) {}

  context(actor = CLIENT): CommandContext {
    return { correlationId: 'corr-test', causationId: 'req-test', actor, now: this.clock.now() };
  }

  async root(set: AuthoritySet): Promise<Node> {
    const id = missionIdFromBytes(randomBytes(16));
    const hash = authorityHash(ISSUER, set);
    await this.mission(id, {
      type: 'CreateMission', missionId: id, issuer: ISSUER, clientId: 'agent-root', authoritySet: set, authorityHash: hash,
      intent: { goal: 'Reconcile November invoices', resources: ['https://erp.example.com/invoices'], expires_at: EXPIRES_AT.toISOString() },
      expiresAt: EXPIRES_AT, approvedBy: APPROVER, now: this.clock.now(),
    });
    return { id, set, hash, depth: 0 };
  }

  /** AttachChild on the parent, then the child's own stream (a ParentLink), then its creation grant. */
  async child(parent: Node, set: AuthoritySet, options: ChildOptions = {}): Promise<ChildNode> {
    const node = this.childNode(parent, set);
    await this.mission(parent.id, this.attachCommand(parent, node));
    if (options.createStream ?? true) await this.createChildStream(parent, node);
    if (options.issueGrant ?? true) {
      const now = this.clock.now();
      await handleCommand(this.store(), grantStreamName(node.grantId), grantDecider, {
        type: 'IssueChildGrant', grantId: node.grantId, missionId: node.id, parentMissionId: parent.id, clientId: node.clientId,
        grantHash: grantTokenHash(node.grantToken), lineageJkts: [PARENT_GRANT_JKT], expiresAt: new Date(now.getTime() + GRANT_TTL_MS), now,
      }, this.context());
    }
    return node;
  }

  childNode(parent: Node, set: AuthoritySet): ChildNode {
    const grantId = grantIdFromBytes(randomBytes(16));
    return {
      id: missionIdFromBytes(randomBytes(16)), set, hash: authorityHash(ISSUER, set), depth: parent.depth + 1, parentId: parent.id,
      clientId: `child-agent-${++childCounter}`, grantId, grantToken: grantTokenFromBytes(grantId, randomBytes(32)),
    };
  }

  attachCommand(parent: Node, child: ChildNode): AttachChild {
    const now = this.clock.now();
    const evidence: ChildEvidence = {
      evidence_id: `evd_${child.id}`,
      parent: { id: parent.id, issuer: ISSUER, authority_hash: parent.hash },
      child: { id: child.id, issuer: ISSUER, authority_hash: child.hash },
      child_actor: { sub: child.clientId },
      requested_by: CLIENT.id,
      attenuation: { result: 'strict_subset', checks: ['strict_subset'] },
      cascade_mode: 'immediate',
      decision: 'created',
      created_at: now.toISOString(),
    };
    return {
      type: 'AttachChild', childMissionId: child.id, childClientId: child.clientId, parentEntryIndexes: [0], actor: CLIENT, now,
      grantId: child.grantId, grantExpiresAt: new Date(now.getTime() + GRANT_TTL_MS), cascadeMode: 'immediate', evidence,
      child: { authoritySet: child.set, expiresAt: EXPIRES_AT, intentResources: ['https://erp.example.com/invoices'] },
    };
  }

  async createChildStream(parent: Node, child: ChildNode): Promise<void> {
    await this.mission(child.id, {
      type: 'CreateMission', missionId: child.id, issuer: ISSUER, clientId: child.clientId, authoritySet: child.set, authorityHash: child.hash,
      intent: { goal: 'Read one invoice', resources: ['https://erp.example.com/invoices'], expires_at: EXPIRES_AT.toISOString() },
      expiresAt: EXPIRES_AT, approvedBy: CLIENT, now: this.clock.now(),
      parent: { id: parent.id, issuer: ISSUER, authority_hash: parent.hash, depth: child.depth, cascade_mode: 'immediate' },
      parentBounds: { expiresAt: EXPIRES_AT, intentResources: ['https://erp.example.com/invoices'] },
    });
  }

  async mission(id: string, command: MissionCommand, actor = CLIENT) {
    return handleCommand(this.store(), missionStreamName(id), missionDecider, command, this.context(actor), { hashChain: true });
  }

  lifecycle(id: string, operation: 'suspend' | 'revoke' | 'complete', reason = `test ${operation}`) {
    return this.mission(id, { type: 'ChangeMissionLifecycle', operation, actor: CLIENT, reason, now: this.clock.now() });
  }

  async state(id: string): Promise<MissionState> {
    return (await aggregateStream(this.store(), missionStreamName(id), missionDecider)).state;
  }
}

export async function eventsOf(store: EventStore, stream: string): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(stream)) events.push(event);
  return events;
}

export async function cascadedEvents(store: EventStore, missionId: string): Promise<RecordedEvent[]> {
  return (await eventsOf(store, missionStreamName(missionId))).filter((event) => event.type === 'MissionCascaded');
}

export async function workTypes(store: EventStore, manager: string, key: string): Promise<string[]> {
  return (await eventsOf(store, `pm_${manager}-${key}`)).map((event) => event.type);
}

/** What the store holds for missions and grants: unchanged means nothing was decided. */
export async function domainHead(store: EventStore): Promise<string> {
  const head = await store.headPosition({ streamCategories: ['mission', 'grant'] });
  return head ? `${head.commit}/${head.prepare}` : 'empty';
}

/**
 * Appends commands decided one after the other over a locally folded state, in batches (hash-chained
 * like handleCommand's appends): setting up a parent with many children without re-reading its stream.
 */
export async function appendDecided(store: EventStore, stream: string, commands: readonly MissionCommand[], context: CommandContext, batch = 200): Promise<void> {
  let current: AggregateState<MissionState> = await aggregateStream(store, stream, missionDecider);
  let previousHash = current.lastEvent ? eventHash(current.lastEvent) : genesisHash(stream);
  for (let start = 0; start < commands.length; start += batch) {
    let state = current.state;
    let revision = current.revision === 'no_stream' ? 0n : current.revision + 1n;
    const data: EventData[] = [];
    for (const command of commands.slice(start, start + batch)) {
      for (const event of missionDecider.decide(command, state) as MissionEvent[]) {
        state = missionDecider.evolve(state, event);
        const metadata: JsonObject = { ...metadataFor(context), [PREV_HASH]: previousHash };
        const eventData = event.data as unknown as JsonObject;
        previousHash = eventHash({ streamName: stream, revision, type: event.type, data: eventData, metadata });
        revision += 1n;
        data.push({ type: event.type, data: eventData, metadata });
      }
    }
    const append = await store.appendToStream(stream, data, { expectedRevision: current.revision });
    current = { state, revision: append.nextExpectedRevision };
  }
}

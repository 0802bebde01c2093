import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { aggregateStream, handleCommand, type CommandContext } from '@mission/es-kit';
import { StreamDeletedError, WrongExpectedRevisionError, type EventStore, type JsonObject } from '@mission/event-store';
import { EVENT_STORE, SERVICE_CONFIG, SERVICE_SETTINGS, type ServiceSettings } from '@mission/platform';
import {
  blobStreamName,
  delegationTreeNodes,
  encodeMissionBlob,
  futureInstant,
  InvalidCommandError,
  isBlobDeleted,
  isPendingId,
  missionApprovalCommand,
  missionBlobBytes,
  missionExists,
  MissionNotFoundError,
  missionS256,
  MissionTerminatedError,
  missionStatusRepresentation,
  parseMissionProposal,
  pendingIdFromBytes,
  proposalBlobFields,
  proposalDecider,
  proposalStreamName,
  proposalViewForAgent,
  visibleTrackedTokens,
  type ApprovedProposal,
  type ManagementCaller,
  type MissionStatusRepresentation,
} from '@mission/ps-domain';
import { SecurityAudit } from '../abuse/security-audit.js';
import { callerKey, type AuthenticatedCaller } from '../auth/authenticated-caller.js';
import type { PersonServerConfig } from '../config/person-server-config.js';
import { CLOCK, type Clock } from '../http/clock.js';
import { InvalidManagementRequestError } from '../http/problem-errors.js';
import type { RequestFacts } from '../http/request-facts.js';
import { authorizeFromApproval, expiryDue, type ApprovalFacts } from './mission-gate.js';
import { AgentRequiredError, PendingProposalNotFoundError } from './mission-problems.js';
import { TREE_PAGE, TreeCursors } from './tree-cursor.js';
import { AgentTenancy } from './agent-tenancy.js';
import { MissionLog } from '../store/mission-log.js';
import { TokenLedger } from '../tokens/token-ledger.js';

/** DESIGN 1: the one event of `psblob-<s256>`: the exact blob bytes, base64url (never in the mission log). */
export const MISSION_BLOB_STORED = 'MissionBlobStored';


export type { RequestFacts } from '../http/request-facts.js';

export type PollResult = { readonly status: 'pending' } | { readonly status: 'approved'; readonly s256: string; readonly mission: string } | { readonly status: 'declined' };

/** Spec 2.7 node. */
export interface TreeNode {
  readonly agent: string;
  readonly relationship: 'root' | 'sub_agent' | 'call_chain';
  readonly parent_agent?: string;
  readonly tokens?: readonly { readonly iss: string; readonly jti: string }[];
}

/** Spec 5.3: the role-bearing view of an authenticated caller that the ps-domain rules read. */
export function managementCaller(caller: AuthenticatedCaller): ManagementCaller {
  if (caller.kind === 'agent') return { role: 'agent', id: caller.agent };
  if (caller.role === 'person') return { role: 'person', id: caller.id, tenant: caller.tenant, ownedAgents: caller.agents };
  return { role: 'admin', id: caller.id, tenant: caller.tenant };
}

function callerRole(caller: AuthenticatedCaller): 'agent' | 'person' | 'admin' {
  return caller.kind === 'agent' ? 'agent' : caller.role;
}

/**
 * The Person Server's mission endpoint (DESIGN 3.1, spec 4): proposals and their approval, and the
 * management operations `status`, `terminate`, `delegation_tree`. Every decision is a ps-domain
 * decider over a stream read with its revision (DESIGN 1); this class only reads, appends and maps.
 *
 * Approval commit order (crash safety, as the issuer's decision 0008): see README.md in this folder —
 * `ProposalApproved` on `psproposal-<id>` is the single commit point; `psblob-<s256>` and then
 * `MissionApproved` on `psmission-<s256>` follow idempotently, and are completed by a retry, by the
 * approval response and by every poll that finds the proposal approved.
 */
@Injectable()
export class MissionManagement {

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SERVICE_CONFIG) private readonly config: PersonServerConfig,
    @Inject(SERVICE_SETTINGS) private readonly settings: ServiceSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly audit: SecurityAudit,
    private readonly cursors: TreeCursors,
    private readonly ledger: TokenLedger,
    private readonly missionLog: MissionLog,
    private readonly tenancy: AgentTenancy,
  ) {}

  /** The PS issuer identifier: the `approver` of every blob it approves (spec 2.1). */
  get approver(): string {
    return this.settings.baseUrl;
  }

  private context(caller: AuthenticatedCaller | undefined, now: Date, causation: string): CommandContext {
    const actor = caller === undefined ? { id: 'ps', role: 'system' } : { id: caller.kind === 'agent' ? caller.agent : caller.id, role: callerRole(caller) };
    return { correlationId: randomUUID(), causationId: causation, actor, now };
  }

  // ── Proposals (DESIGN 3.1) ─────────────────────────────────────────────────────────────────────

  /** `POST /mission` without `operation`: records ProposalSubmitted; returns the pending id. */
  async propose(caller: AuthenticatedCaller, body: unknown): Promise<string> {
    if (caller.kind !== 'agent') throw new AgentRequiredError();
    const now = this.clock.now();
    const proposal = parseMissionProposal(body, now);
    const pendingId = pendingIdFromBytes(new Uint8Array(randomBytes(16)));
    await handleCommand(
      this.store,
      proposalStreamName(pendingId),
      proposalDecider,
      { type: 'submit', pendingId, agent: caller.agent, agentJkt: caller.agentJkt, proposal, now },
      this.context(caller, now, `proposal:${pendingId}`),
    );
    return pendingId;
  }

  /** `GET /mission/pending/{id}`: only the proposing agent sees it; everyone else gets the unknown-id 404. */
  async poll(caller: AuthenticatedCaller, pendingId: string): Promise<PollResult> {
    if (caller.kind !== 'agent' || !isPendingId(pendingId)) throw new PendingProposalNotFoundError();
    const { state } = await aggregateStream(this.store, proposalStreamName(pendingId), proposalDecider);
    const view = proposalViewForAgent(state, caller.agent);
    if (view.status !== 'approved') return view;
    const proposal = state as ApprovedProposal;
    const bytes = await this.completeApproval(proposal, caller);
    // Spec 3 rule 5: the body was deleted; the tombstone answers `mission_terminated` and nothing is re-created.
    if (bytes instanceof MissionTerminatedError) throw bytes;
    await this.refuseTerminated(proposal, caller);
    return { status: 'approved', s256: view.s256, mission: encodeMissionBlob(bytes) };
  }

  /**
   * Spec 3 rule 3 (ADR 0013): polling the proposal is a base interaction request under the mission, so
   * once the mission is terminated — or its `expires_at` has passed, which is recorded first (spec 3,
   * attributed to the PS scheduler) — the poll answers `mission_terminated` instead of handing out the
   * blob of a mission no work may start under.
   */
  private async refuseTerminated(proposal: ApprovedProposal, caller: AuthenticatedCaller): Promise<void> {
    const s256 = proposal.approval.s256;
    const now = this.clock.now();
    // Spec 2.8: a due expiry recorded here carries the token-impact summary.
    const trackedTokens = expiryDue(proposal.approval, now) ? await this.ledger.state(s256) : undefined;
    const { state } = await this.missionLog.execute(s256, { type: 'applyExpiry', now, ...(trackedTokens !== undefined ? { trackedTokens } : {}) }, this.context(caller, now, `poll-expiry:${s256}`));
    if (missionExists(state) && state.status === 'terminated') throw new MissionTerminatedError(state.termination.reason);
  }

  /**
   * `POST /mission/approvals`: a person owning the proposal's agent approves (→ s256) or declines.
   * Anyone else — an agent, an administrator, a person not owning the agent — gets the unknown-id 404.
   */
  async decide(caller: AuthenticatedCaller, body: unknown): Promise<{ s256: string } | { status: 'declined' }> {
    if (!isObject(body)) throw new InvalidManagementRequestError('the request must be a JSON object');
    const pendingId = body['pending_id'];
    const decision = body['decision'];
    if (typeof pendingId !== 'string') throw new InvalidManagementRequestError('pending_id is required');
    if (decision !== 'approve' && decision !== 'decline') throw new InvalidManagementRequestError('decision must be "approve" or "decline"');
    if (caller.kind !== 'principal' || caller.role !== 'person' || !isPendingId(pendingId)) throw new PendingProposalNotFoundError();
    const person = { id: caller.id, tenant: caller.tenant };
    const stream = proposalStreamName(pendingId);
    const now = this.clock.now();
    const context = this.context(caller, now, `approval:${pendingId}`);

    const current = await aggregateStream(this.store, stream, proposalDecider);
    const ownsAgent = current.state.status !== 'none' && caller.agents.includes(current.state.agent);

    if (decision === 'decline') {
      await handleCommand(this.store, stream, proposalDecider, { type: 'decline', person, ownsAgent, now }, context);
      return { status: 'declined' };
    }

    if (ownsAgent && current.state.status === 'approved') {
      // A repeated approval (e.g. after a lost response or a crash): finish what the first one committed, then refuse.
      await this.completeApproval(current.state, caller);
    }
    const expiresAt = body['expires_at'] !== undefined ? futureInstant(body['expires_at'], now, 'expires_at') : undefined;
    const fields =
      current.state.status === 'none' ? undefined : proposalBlobFields(current.state, { approver: this.approver, now, ...(expiresAt ? { expiresAt } : {}) });
    // The digest is only meaningful when the decider will accept (it re-derives and compares it).
    const s256 = fields !== undefined && ownsAgent && current.state.status === 'pending' ? safeDigest(fields) : PLACEHOLDER_S256;
    const result = await handleCommand(
      this.store,
      stream,
      proposalDecider,
      { type: 'approve', person, ownsAgent, approver: this.approver, s256, ...(expiresAt ? { expiresAt } : {}), now },
      context,
    );
    const approved = result.state as ApprovedProposal;
    await this.completeApproval(approved, caller);
    return { s256: approved.approval.s256 };
  }

  /**
   * After the commit point (ProposalApproved): rebuilds the blob bytes from the approved proposal (the
   * serialization is deterministic and verified against the committed `s256`), stores them on
   * `psblob-<s256>` if absent, records MissionApproved if absent. Safe to run any number of times.
   *
   * Spec 3 rule 5: once an administrator deleted the body (MissionBlobDeleted on `psmission-<s256>`,
   * the tombstone), nothing is stored or recorded again: the answer is the base `mission_terminated`
   * error with the recorded reason (returned, not thrown, so that a repeated approval still gets its
   * own refusal).
   */
  private async completeApproval(proposal: ApprovedProposal, caller: AuthenticatedCaller): Promise<Uint8Array | MissionTerminatedError> {
    const { approval } = proposal;
    const bytes = missionBlobBytes(
      proposalBlobFields(proposal, { approver: this.approver, now: approval.approvedAt, ...(approval.expiresAt ? { expiresAt: approval.expiresAt } : {}) }),
    );
    if (missionS256(bytes) !== approval.s256) throw new InvalidCommandError('the approved blob does not rebuild to the committed s256');
    const tombstone = await this.deletedBody(approval.s256);
    if (tombstone !== undefined) return tombstone;
    if (!(await this.storeBlob(approval.s256, bytes, caller))) {
      // The body was deleted between the check and the append (the deletion logs MissionBlobDeleted first).
      const deleted = await this.deletedBody(approval.s256);
      if (deleted !== undefined) return deleted;
      throw new InvalidCommandError('psblob is deleted but the mission log records no MissionBlobDeleted');
    }
    const command = missionApprovalCommand(proposal, this.approver);
    await this.missionLog.execute(approval.s256, command, this.context(caller, approval.approvedAt, `approval:${proposal.pendingId}`));
    return bytes;
  }

  /** Spec 3 rule 5: the tombstone's `mission_terminated` when the body of `s256` was deleted, else undefined. */
  private async deletedBody(s256: string): Promise<MissionTerminatedError | undefined> {
    const state = await this.missionLog.state(s256);
    if (!isBlobDeleted(state) || state.status !== 'terminated') return undefined;
    return new MissionTerminatedError(state.termination.reason);
  }

  /** Stores the blob on `psblob-<s256>` (or finds the same bytes there); false when the stream was deleted (spec 3 rule 5). */
  private async storeBlob(s256: string, bytes: Uint8Array, caller: AuthenticatedCaller): Promise<boolean> {
    const stream = blobStreamName(s256);
    const event = {
      type: MISSION_BLOB_STORED,
      data: { mission_s256: s256, blob: encodeMissionBlob(bytes) },
      metadata: metadataOf(this.context(caller, this.clock.now(), `blob:${s256}`)),
    };
    try {
      await this.store.appendToStream(stream, [event], { expectedRevision: 'no_stream' });
    } catch (error) {
      if (error instanceof StreamDeletedError) return false;
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      const stored = await this.readBlob(s256).catch((readError: unknown) => {
        if (readError instanceof StreamDeletedError) return 'deleted' as const;
        throw readError;
      });
      if (stored === 'deleted') return false;
      if (stored === undefined || !Buffer.from(stored).equals(Buffer.from(bytes))) throw new InvalidCommandError('psblob holds other bytes than the approved blob');
    }
    return true;
  }

  private async readBlob(s256: string): Promise<Uint8Array | undefined> {
    for await (const event of this.store.readStream(blobStreamName(s256), { maxCount: 1 })) {
      if (event.type === MISSION_BLOB_STORED && typeof event.data['blob'] === 'string') return new Uint8Array(Buffer.from(event.data['blob'], 'base64url'));
    }
    return undefined;
  }

  // ── Management operations (spec 4) ─────────────────────────────────────────────────────────────

  /** Spec 5.9: absent and not authorized are one answer; the probe goes to the security audit with a keyed digest. */
  async authorized<T>(caller: AuthenticatedCaller, s256: string, facts: RequestFacts, work: (approval: ApprovalFacts) => Promise<T>): Promise<T> {
    try {
      // Spec 5.9: absent and not authorized cost the same one-event read, before anything history-sized.
      const approval = await authorizeFromApproval(this.store, s256, managementCaller(caller));
      return await work(approval);
    } catch (error) {
      if (error instanceof MissionNotFoundError) this.audit.record({ kind: 'mission_probe', reason: error.auditDetail, caller, missionS256: s256, ...facts });
      throw error;
    }
  }

  /** Spec 4.1: the 2.3 representation; appends MissionStatusRead (and a due expiry first). Never the blob. */
  async status(caller: AuthenticatedCaller, s256: string, facts: RequestFacts): Promise<MissionStatusRepresentation> {
    return this.authorized(caller, s256, facts, async (approval) => {
      const now = this.clock.now();
      // Spec 2.8: a due expiry recorded first carries the token-impact summary (read only then: status stays one read).
      const trackedTokens = expiryDue(approval, now) ? await this.ledger.state(s256) : undefined;
      const result = await this.missionLog.execute(
        s256,
        { type: 'readStatus', caller: managementCaller(caller), now, ...(trackedTokens !== undefined ? { trackedTokens } : {}) },
        this.context(caller, now, `status:${facts.requestId ?? randomUUID()}`),
      );
      return missionStatusRepresentation(result.state, now, this.config.status_freshness_seconds);
    });
  }

  /**
   * Spec 4.3: the nodes from verified data only: the blob's agent as root, and the sub-agent and
   * call-chain holders of Auth Tokens recorded on `pstokens-<s256>` (ps-domain `delegationTreeNodes`).
   * Appends DelegationTreeRead.
   */
  async delegationTree(caller: AuthenticatedCaller, s256: string, body: Record<string, unknown>, facts: RequestFacts): Promise<JsonObject> {
    const maxResults = body['max_results'] ?? TREE_PAGE.defaultMaxResults;
    if (typeof maxResults !== 'number' || !Number.isSafeInteger(maxResults) || maxResults < 1 || maxResults > TREE_PAGE.maxMaxResults) {
      throw new InvalidManagementRequestError(`max_results must be an integer from 1 to ${TREE_PAGE.maxMaxResults}`);
    }
    const cursor = body['cursor'];
    if (cursor !== undefined && typeof cursor !== 'string') throw new InvalidManagementRequestError('cursor must be a string');
    return this.authorized(caller, s256, facts, async (approval) => {
      const who = managementCaller(caller);
      const now = this.clock.now();
      const scope = { callerKey: callerKey(caller), missionS256: s256 };
      const offset = cursor === undefined ? 0 : this.cursors.open(cursor, scope, now);
      const trackedTokens = await this.ledger.state(s256);
      // Spec 4.3 rule 3 (ADR 0019): only nodes whose agent the caller may know — never another tenant's node, tokens
      // or anything beneath it. Spec 2.7: token identifiers for persons and administrators; an agent sees only its own.
      const visible = visibleTrackedTokens(approval.agent, trackedTokens, this.tenancy.knownTo(approval.tenant));
      const nodes = delegationTreeNodes(approval.agent, visible, approval.role === 'agent' ? { kind: 'own', agent: approval.agent } : { kind: 'all' });
      const page = nodes.slice(offset, offset + maxResults);
      const next = offset + page.length < nodes.length ? this.cursors.issue(scope, offset + page.length, now) : undefined;
      await this.missionLog.execute(
        s256,
        // Spec 2.8: a due expiry recorded first carries the token-impact summary.
        { type: 'readTree', caller: who, nodeCount: page.length, complete: next === undefined, now, trackedTokens },
        this.context(caller, now, `tree:${facts.requestId ?? randomUUID()}`),
      );
      return { mission_s256: s256, as_of: now.toISOString(), nodes: page as unknown as JsonObject[], complete: next === undefined, ...(next !== undefined ? { next_cursor: next } : {}) };
    });
  }
}

const PLACEHOLDER_S256 = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

function safeDigest(fields: Parameters<typeof missionBlobBytes>[0]): string {
  try {
    return missionS256(missionBlobBytes(fields));
  } catch {
    return PLACEHOLDER_S256;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function metadataOf(context: CommandContext): JsonObject {
  return { correlation_id: context.correlationId, causation_id: context.causationId, actor: { id: context.actor.id, role: context.actor.role }, occurred_at: context.now.toISOString() };
}

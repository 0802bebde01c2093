import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { aggregateStream, handleCommand, type CommandContext } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, SERVICE_SETTINGS, type ServiceSettings } from '@mission/platform';
import {
  encodeMissionBlob,
  futureInstant,
  InvalidCommandError,
  isBlobDeleted,
  isPendingId,
  missionApprovalCommand,
  missionBlobBytes,
  missionExists,
  missionS256,
  MissionTerminatedError,
  parseMissionProposal,
  pendingIdFromBytes,
  proposalBlobFields,
  proposalDecider,
  proposalStreamName,
  proposalViewForAgent,
  type ApprovedProposal,
  type MissionProposal,
} from '@mission/ps-domain';
import type { AuthenticatedCaller } from '../identity/authenticated-caller.js';
import { CLOCK, type Clock } from '../time/clock.js';
import { InvalidManagementRequestError } from '../errors/problem-errors.js';
import { MissionLog } from '../store/mission-log.js';
import { TokenLedger } from '../store/token-ledger.js';
import { MissionBodies } from '../store/mission-bodies.js';
import { expiryDue } from '../store/mission-gate.js';
import { AgentRequiredError, PendingProposalNotFoundError } from '../errors/mission-problems.js';

export type PollResult = { readonly status: 'pending' } | { readonly status: 'approved'; readonly s256: string; readonly mission: string } | { readonly status: 'declined' };

const PLACEHOLDER_S256 = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
/** Sent with an approval the decider refuses before it reads any content (not pending, not the owner). */
const NO_CONTENT: MissionProposal = { description: 'none' };

/**
 * Proposals and their approval (DESIGN 3.1; README.md in this folder). The content of a proposal lives
 * only on `psproposalbody-<pending_id>` and, once approved, only in `psblob-<s256>` (spec 3 rule 5, ADR
 * 0019): the proposal stream keeps its digest, the mission log what the tombstone needs.
 *
 * Approval commit order (crash safety, as the issuer's decision 0008): `ProposalApproved` on
 * `psproposal-<id>` is the single commit point; `psblob-<s256>`, then `MissionApproved` on
 * `psmission-<s256>`, then the deletion of `psproposalbody-<id>` follow idempotently, and are completed by
 * a retry, by the approval response and by every poll that finds the proposal approved.
 */
@Injectable()
export class MissionProposals {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SERVICE_SETTINGS) private readonly settings: ServiceSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly bodies: MissionBodies,
    private readonly missionLog: MissionLog,
    private readonly ledger: TokenLedger,
  ) {}

  /** The PS issuer identifier: the `approver` of every blob it approves (spec 2.1). */
  private get approver(): string {
    return this.settings.baseUrl;
  }

  /** `POST /mission` without `operation`: the content on its own stream, then ProposalSubmitted; returns the pending id. */
  async propose(caller: AuthenticatedCaller, body: unknown): Promise<string> {
    if (caller.kind !== 'agent') throw new AgentRequiredError();
    const now = this.clock.now();
    const proposal = parseMissionProposal(body, now);
    const pendingId = pendingIdFromBytes(new Uint8Array(randomBytes(16)));
    const context = this.context(caller, now, `proposal:${pendingId}`);
    // Content first: a crash in between leaves content no proposal refers to, never a proposal without content.
    await this.bodies.recordProposalContent(pendingId, proposal, context);
    await handleCommand(this.store, proposalStreamName(pendingId), proposalDecider, { type: 'submit', pendingId, agent: caller.agent, agentJkt: caller.agentJkt, proposal, now }, context);
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
      // Spec 1 item 7: a declined proposal's content is not kept.
      await this.bodies.deleteProposalContent(pendingId);
      return { status: 'declined' };
    }

    if (ownsAgent && current.state.status === 'approved') {
      // A repeated approval (e.g. after a lost response or a crash): finish what the first one committed, then refuse.
      await this.completeApproval(current.state, caller);
    }
    const expiresAt = body['expires_at'] !== undefined ? futureInstant(body['expires_at'], now, 'expires_at') : undefined;
    const pending = ownsAgent && current.state.status === 'pending';
    const content = pending ? await this.bodies.proposalContent(pendingId) : undefined;
    // The digest is only meaningful when the decider will accept (it re-derives and compares it).
    const s256 = content !== undefined ? safeDigest(() => proposalBlobFields(current.state, content, { approver: this.approver, now, ...(expiresAt ? { expiresAt } : {}) })) : PLACEHOLDER_S256;
    const result = await handleCommand(
      this.store,
      stream,
      proposalDecider,
      { type: 'approve', person, ownsAgent, approver: this.approver, content: content ?? NO_CONTENT, s256, ...(expiresAt ? { expiresAt } : {}), now },
      context,
    );
    const approved = result.state as ApprovedProposal;
    await this.completeApproval(approved, caller);
    return { s256: approved.approval.s256 };
  }

  /**
   * After the commit point (ProposalApproved): the blob bytes — read from `psblob-<s256>`, or built once
   * from the proposal content and verified against the committed `s256` — stored if absent, MissionApproved
   * recorded if absent, the proposal content deleted (the content now lives only in `psblob-<s256>`). Safe to
   * run any number of times.
   *
   * Spec 3 rule 5: once an administrator deleted the body (MissionBlobDeleted on `psmission-<s256>`, the
   * tombstone), nothing is stored or recorded again: the answer is the base `mission_terminated` error with
   * the recorded reason (returned, not thrown, so that a repeated approval still gets its own refusal).
   */
  private async completeApproval(proposal: ApprovedProposal, caller: AuthenticatedCaller): Promise<Uint8Array | MissionTerminatedError> {
    const { approval } = proposal;
    const tombstone = await this.deletedBody(approval.s256);
    if (tombstone !== undefined) return tombstone;
    const context = this.context(caller, this.clock.now(), `blob:${approval.s256}`);
    let bytes = await this.bodies.blob(approval.s256);
    if (bytes === undefined) {
      const content = await this.bodies.proposalContent(proposal.pendingId);
      if (content === undefined) throw new InvalidCommandError('neither psblob nor the proposal content is stored for an approved proposal');
      const built = missionBlobBytes(proposalBlobFields(proposal, content, { approver: this.approver, now: approval.approvedAt, ...(approval.expiresAt ? { expiresAt: approval.expiresAt } : {}) }));
      bytes = (await this.bodies.storeBlob(approval.s256, built, context)) ? built : 'deleted';
    }
    if (bytes === 'deleted') {
      // The body was deleted between the check and here (the deletion logs MissionBlobDeleted first).
      const deleted = await this.deletedBody(approval.s256);
      if (deleted !== undefined) return deleted;
      throw new InvalidCommandError('psblob is deleted but the mission log records no MissionBlobDeleted');
    }
    if (missionS256(bytes) !== approval.s256) throw new InvalidCommandError('the approved blob does not rebuild to the committed s256');
    await this.missionLog.execute(approval.s256, missionApprovalCommand(proposal, this.approver), this.context(caller, approval.approvedAt, `approval:${proposal.pendingId}`));
    await this.bodies.deleteProposalContent(proposal.pendingId);
    return bytes;
  }

  /** Spec 3 rule 5: the tombstone's `mission_terminated` when the body of `s256` was deleted, else undefined. */
  private async deletedBody(s256: string): Promise<MissionTerminatedError | undefined> {
    const state = await this.missionLog.state(s256);
    if (!isBlobDeleted(state) || state.status !== 'terminated') return undefined;
    return new MissionTerminatedError(state.termination.reason);
  }

  private context(caller: AuthenticatedCaller, now: Date, causation: string): CommandContext {
    const actor = caller.kind === 'agent' ? { id: caller.agent, role: 'agent' } : { id: caller.id, role: caller.role };
    return { correlationId: randomUUID(), causationId: causation, actor, now };
  }
}

function safeDigest(fields: () => Parameters<typeof missionBlobBytes>[0]): string {
  try {
    return missionS256(missionBlobBytes(fields()));
  } catch {
    return PLACEHOLDER_S256;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { aggregateStream, handleCommand, type RequestTrace } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE } from '@mission/platform';
import { futureInstant, isPendingId, missionBlobBytes, missionS256, proposalBlobFields, proposalDecider, proposalStreamName, type ApprovedProposal, type MissionProposal } from '@mission/ps-domain';
import { NotFoundProblem } from '../../errors/problems.js';
import { jsonShape } from '../../http/json-shape.js';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { MissionBodies } from '../../store/mission-bodies.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import { ApprovalCompletion } from '../shared/approval-completion.js';
import { commandContext } from '../shared/command-context.js';
import { ProposalDecisionBody } from './proposal-decision.body.js';

export type ProposalDecisionResult = { readonly s256: string } | { readonly status: 'declined' };

const PLACEHOLDER_S256 = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
/** Sent with an approval the decider refuses before it reads any content (not pending, not the owner). */
const NO_CONTENT: MissionProposal = { description: 'none' };

/** `POST /mission/approvals` (DESIGN 3.1) with the request's JSON body. */
export class DecideProposal extends Command<ProposalDecisionResult> {
  constructor(
    readonly caller: AuthenticatedCaller,
    readonly body: unknown,
    /** The request it runs for (ADR 0050), into the events' metadata. */
    readonly trace: RequestTrace | undefined,
  ) {
    super();
  }
}

/**
 * A person owning the proposal's agent approves (→ s256) or declines. Anyone else — an agent, an
 * administrator, a person not owning the agent — gets the unknown-id 404. `ProposalApproved` on
 * `psproposal-<id>` is the single commit point; ApprovalCompletion does the rest (README.md of use-cases).
 */
@CommandHandler(DecideProposal)
export class DecideProposalHandler implements ICommandHandler<DecideProposal> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly bodies: MissionBodies,
    private readonly completion: ApprovalCompletion,
  ) {}

  async execute({ caller, body, trace }: DecideProposal): Promise<ProposalDecisionResult> {
    const { pending_id: pendingId, decision, expires_at: requestedExpiry } = jsonShape(ProposalDecisionBody, body, 'the request must be a JSON object');
    if (caller.kind !== 'principal' || caller.role !== 'person' || !isPendingId(pendingId)) throw new NotFoundProblem();
    const person = { id: caller.id, tenant: caller.tenant };
    const stream = proposalStreamName(pendingId);
    const now = this.clock.now();
    const context = commandContext(caller, now, `approval:${pendingId}`, trace);

    const current = await aggregateStream(this.store, stream, proposalDecider);
    const ownsAgent = current.state.status !== 'none' && caller.agents.includes(current.state.agent);

    if (decision === 'decline') {
      await handleCommand(this.store, stream, proposalDecider, { type: 'DeclineProposal', person, ownsAgent, now }, context);
      // Spec 1 item 7: a declined proposal's content is not kept.
      await this.bodies.deleteProposalContent(pendingId);
      return { status: 'declined' };
    }

    if (ownsAgent && current.state.status === 'approved') {
      // A repeated approval (e.g. after a lost response or a crash): finish what the first one committed, then refuse.
      await this.completion.complete(current.state, caller, trace);
    }
    const approver = this.completion.approver;
    const expiresAt = requestedExpiry !== undefined ? futureInstant(requestedExpiry, now, 'expires_at') : undefined;
    const pending = ownsAgent && current.state.status === 'pending';
    const content = pending ? await this.bodies.proposalContent(pendingId) : undefined;
    // The digest is only meaningful when the decider will accept (it re-derives and compares it).
    const s256 = content !== undefined ? safeDigest(() => proposalBlobFields(current.state, content, { approver, now, ...(expiresAt ? { expiresAt } : {}) })) : PLACEHOLDER_S256;
    const result = await handleCommand(
      this.store,
      stream,
      proposalDecider,
      { type: 'ApproveProposal', person, ownsAgent, approver, content: content ?? NO_CONTENT, s256, ...(expiresAt ? { expiresAt } : {}), now },
      context,
    );
    const approved = result.state as ApprovedProposal;
    await this.completion.complete(approved, caller, trace);
    return { s256: approved.approval.s256 };
  }
}

function safeDigest(fields: () => Parameters<typeof missionBlobBytes>[0]): string {
  try {
    return missionS256(missionBlobBytes(fields()));
  } catch {
    return PLACEHOLDER_S256;
  }
}

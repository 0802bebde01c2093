import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { aggregateStream, type RequestTrace } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE } from '@mission/platform';
import { encodeMissionBlob, isPendingId, missionExists, MissionTerminatedError, proposalDecider, proposalStreamName, proposalViewForAgent, type ApprovedProposal } from '@mission/ps-domain';
import { NotFoundProblem } from '../../errors/problems.js';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { expiryDue } from '../../store/mission-gate.js';
import { MissionLog } from '../../store/mission-log.js';
import { TokenLedger } from '../../store/token-ledger.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import { ApprovalCompletion } from '../shared/approval-completion.js';
import { commandContext } from '../shared/command-context.js';

export type PollResult = { readonly status: 'pending' } | { readonly status: 'approved'; readonly s256: string; readonly mission: string } | { readonly status: 'declined' };

/** `GET /mission/pending/{id}` (DESIGN 3.1). */
export class PollProposal extends Query<PollResult> {
  constructor(
    readonly caller: AuthenticatedCaller,
    readonly pendingId: string,
    /** The request it runs for (ADR 0050), into the events' metadata. */
    readonly trace: RequestTrace | undefined,
  ) {
    super();
  }
}

/**
 * Only the proposing agent sees its proposal; everyone else gets the unknown-id 404. A poll that finds the
 * proposal approved completes the approval (ApprovalCompletion) before it hands out `s256` and the blob.
 */
@QueryHandler(PollProposal)
export class PollProposalHandler implements IQueryHandler<PollProposal> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly completion: ApprovalCompletion,
    private readonly missionLog: MissionLog,
    private readonly ledger: TokenLedger,
  ) {}

  async execute({ caller, pendingId, trace }: PollProposal): Promise<PollResult> {
    if (caller.kind !== 'agent' || !isPendingId(pendingId)) throw new NotFoundProblem();
    const { state } = await aggregateStream(this.store, proposalStreamName(pendingId), proposalDecider);
    const view = proposalViewForAgent(state, caller.agent);
    if (view.status !== 'approved') return view;
    const proposal = state as ApprovedProposal;
    const bytes = await this.completion.complete(proposal, caller, trace);
    // Spec 3 rule 5: the body was deleted; the tombstone answers `mission_terminated` and nothing is re-created.
    if (bytes instanceof MissionTerminatedError) throw bytes;
    await this.refuseTerminated(proposal, caller, trace);
    return { status: 'approved', s256: view.s256, mission: encodeMissionBlob(bytes) };
  }

  /**
   * Spec 3 rule 3 (ADR 0013): polling the proposal is a base interaction request under the mission, so
   * once the mission is terminated — or its `expires_at` has passed, which is recorded first (spec 3,
   * attributed to the PS scheduler) — the poll answers `mission_terminated` instead of handing out the
   * blob of a mission no work may start under.
   */
  private async refuseTerminated(proposal: ApprovedProposal, caller: AuthenticatedCaller, trace: RequestTrace | undefined): Promise<void> {
    const s256 = proposal.approval.s256;
    const now = this.clock.now();
    // Spec 2.8: a due expiry recorded here carries the token-impact summary.
    const trackedTokens = expiryDue(proposal.approval, now) ? await this.ledger.state(s256) : undefined;
    const { state } = await this.missionLog.execute(s256, { type: 'ApplyMissionExpiry', now, ...(trackedTokens !== undefined ? { trackedTokens } : {}) }, commandContext(caller, now, `poll-expiry:${s256}`, trace));
    if (missionExists(state) && state.status === 'terminated') throw new MissionTerminatedError(state.termination.reason);
  }
}

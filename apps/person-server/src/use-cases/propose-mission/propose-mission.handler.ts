import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { handleCommand, type RequestTrace } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, secureRandomBytes } from '@mission/platform';
import { parseMissionProposal, pendingIdFromBytes, proposalDecider, proposalStreamName } from '@mission/ps-domain';
import { AccessDeniedProblem } from '../../errors/problems.js';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { MissionBodies } from '../../store/mission-bodies.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import { commandContext } from '../shared/command-context.js';

/** `POST /mission` without `operation` (DESIGN 3.1): the body is the proposal; the answer its pending id. */
export class ProposeMission extends Command<string> {
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
 * The content of a proposal lives only on `psproposalbody-<pending_id>` and, once approved, only in
 * `psblob-<s256>` (spec 3 rule 5, ADR 0019): the proposal stream keeps its digest. Content first, then
 * ProposalSubmitted: a crash in between leaves content no proposal refers to, never a proposal without content.
 */
@CommandHandler(ProposeMission)
export class ProposeMissionHandler implements ICommandHandler<ProposeMission> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly bodies: MissionBodies,
  ) {}

  async execute({ caller, body, trace }: ProposeMission): Promise<string> {
    // DESIGN 3.1: proposing a mission is an agent's request; a Management Principal cannot make one.
    if (caller.kind !== 'agent') throw new AccessDeniedProblem('only an agent may propose a mission');
    const now = this.clock.now();
    const proposal = parseMissionProposal(body, now);
    const pendingId = pendingIdFromBytes(new Uint8Array(secureRandomBytes(16)));
    const context = commandContext(caller, now, `proposal:${pendingId}`, trace);
    await this.bodies.recordProposalContent(pendingId, proposal, context);
    await handleCommand(this.store, proposalStreamName(pendingId), proposalDecider, { type: 'SubmitProposal', pendingId, agent: caller.agent, agentJkt: caller.agentJkt, proposal, now }, context);
    return pendingId;
  }
}

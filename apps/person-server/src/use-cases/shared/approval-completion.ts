import { Inject, Injectable } from '@nestjs/common';
import type { RequestTrace } from '@mission/es-kit';
import { SERVICE_SETTINGS, type ServiceSettings } from '@mission/platform';
import { InvalidCommandError, isBlobDeleted, missionApprovalCommand, missionBlobBytes, missionS256, MissionTerminatedError, proposalBlobFields, type ApprovedProposal } from '@mission/ps-domain';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { MissionBodies } from '../../store/mission-bodies.js';
import { MissionLog } from '../../store/mission-log.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import { commandContext } from './command-context.js';

/**
 * What follows the approval's commit point (`ProposalApproved` on `psproposal-<id>`; README.md of use-cases,
 * crash safety as the issuer's decision 0008): `psblob-<s256>`, then `MissionApproved` on `psmission-<s256>`,
 * then the deletion of `psproposalbody-<id>`, idempotently — completed by a retry, by the approval response
 * and by every poll that finds the proposal approved.
 */
@Injectable()
export class ApprovalCompletion {
  constructor(
    @Inject(SERVICE_SETTINGS) private readonly settings: ServiceSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly bodies: MissionBodies,
    private readonly missionLog: MissionLog,
  ) {}

  /** The PS issuer identifier: the `approver` of every blob it approves (spec 2.1). */
  get approver(): string {
    return this.settings.baseUrl;
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
  async complete(proposal: ApprovedProposal, caller: AuthenticatedCaller, trace: RequestTrace | undefined): Promise<Uint8Array | MissionTerminatedError> {
    const { approval } = proposal;
    const tombstone = await this.deletedBody(approval.s256);
    if (tombstone !== undefined) return tombstone;
    const context = commandContext(caller, this.clock.now(), `blob:${approval.s256}`, trace);
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
    await this.missionLog.execute(approval.s256, missionApprovalCommand(proposal, this.approver), commandContext(caller, approval.approvedAt, `approval:${proposal.pendingId}`, trace));
    await this.bodies.deleteProposalContent(proposal.pendingId);
    return bytes;
  }

  /** Spec 3 rule 5: the tombstone's `mission_terminated` when the body of `s256` was deleted, else undefined. */
  private async deletedBody(s256: string): Promise<MissionTerminatedError | undefined> {
    const state = await this.missionLog.state(s256);
    if (!isBlobDeleted(state) || state.status !== 'terminated') return undefined;
    return new MissionTerminatedError(state.termination.reason);
  }
}

import { InvalidCommandError } from '../errors/ps-domain.error.js';
import type { ProposalState } from '../proposal/proposal.state.js';
import type { ApproveMission } from './mission.commands.js';

/**
 * The ApproveMission command for `psmission-<s256>` from an approved proposal (after ProposalApproved
 * committed): the mission's agent, approver, tenant, times and digest are exactly the approval's.
 */
export function missionApprovalCommand(proposal: ProposalState, approver: string): ApproveMission {
  if (proposal.status !== 'approved') throw new InvalidCommandError('the proposal is not approved');
  const { approval } = proposal;
  return {
    type: 'ApproveMission',
    approver,
    missionS256: approval.s256,
    agent: proposal.agent,
    approvedBy: approval.approvedBy,
    tenant: approval.tenant,
    ...(approval.expiresAt !== undefined ? { expiresAt: approval.expiresAt } : {}),
    pendingId: proposal.pendingId,
    now: approval.approvedAt,
  };
}

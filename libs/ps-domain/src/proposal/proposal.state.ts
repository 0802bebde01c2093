import type { MissionBlobFields } from '../blob/mission-blob.js';
import type { MissionProposal } from '../blob/mission-proposal.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { proposalContentDigest } from './proposal-content.js';
import { ProposalNotFoundError } from './proposal.errors.js';

export interface NoProposal {
  readonly status: 'none';
}

export interface ProposalApproval {
  readonly s256: string;
  readonly approvedBy: string;
  readonly tenant: string;
  readonly approvedAt: Date;
  readonly expiresAt?: Date;
}

export interface ProposalDecline {
  readonly declinedBy: string;
  readonly declinedAt: Date;
}

interface ProposalBase {
  readonly pendingId: string;
  readonly agent: string;
  readonly agentJkt: string;
  /** `proposalContentDigest` of the content on `psproposalbody-<pending_id>` (never the content itself). */
  readonly contentDigest: string;
  readonly submittedAt: Date;
}

export interface PendingProposal extends ProposalBase {
  readonly status: 'pending';
}

export interface ApprovedProposal extends ProposalBase {
  readonly status: 'approved';
  readonly approval: ProposalApproval;
}

export interface DeclinedProposal extends ProposalBase {
  readonly status: 'declined';
  readonly decline: ProposalDecline;
}

export type Proposal = PendingProposal | ApprovedProposal | DeclinedProposal;
export type ProposalState = NoProposal | Proposal;

export const initialProposalState: ProposalState = { status: 'none' };

export function proposalExists(state: ProposalState): state is Proposal {
  return state.status !== 'none';
}

/**
 * What the agent's poll of the pending URL reports (DESIGN 3.1): `pending` (202), `approved` with the
 * Mission Reference digest (200 `{s256, mission}`, the application adds the blob bytes from
 * `psblob-<s256>`), `declined` (403 `{"error":"denied"}`).
 */
export type ProposalView = { readonly status: 'pending' } | { readonly status: 'approved'; readonly s256: string } | { readonly status: 'declined' };

export function proposalView(state: ProposalState): ProposalView {
  if (!proposalExists(state)) throw new ProposalNotFoundError('absent');
  if (state.status === 'approved') return { status: 'approved', s256: state.approval.s256 };
  if (state.status === 'declined') return { status: 'declined' };
  return { status: 'pending' };
}

/**
 * The poll view for an authenticated agent: only the agent that submitted the proposal may poll it;
 * anyone else gets the same `not_found` as for an unknown id.
 */
export function proposalViewForAgent(state: ProposalState, agent: string): ProposalView {
  if (!proposalExists(state)) throw new ProposalNotFoundError('absent');
  if (state.agent !== agent) throw new ProposalNotFoundError('not_submitter');
  return proposalView(state);
}

export interface BlobOptions {
  /** The PS issuer identifier. */
  readonly approver: string;
  /** The approval instant: becomes `approved_at`. */
  readonly now: Date;
  /** The person's override of `expires_at`. */
  readonly expiresAt?: Date;
}

/**
 * DESIGN 3.1: the blob fields an approval of this proposal serializes from its `content` (read from
 * `psproposalbody-<pending_id>`) — `approved_tools` and `approved_resources` are the proposed `tools` and
 * `resources`, `expires_at` the override or else the proposal's. Feed them to `missionBlobBytes`.
 *
 * @throws InvalidCommandError when `content` is not the content this proposal was submitted with
 */
export function proposalBlobFields(state: ProposalState, content: MissionProposal, options: BlobOptions): MissionBlobFields {
  if (!proposalExists(state)) throw new InvalidCommandError('there is no proposal to build a blob from');
  if (proposalContentDigest(content) !== state.contentDigest) throw new InvalidCommandError('the content is not the one this proposal was submitted with');
  const expiresAt = options.expiresAt?.toISOString() ?? content.expires_at;
  return {
    approver: options.approver,
    agent: state.agent,
    approved_at: options.now.toISOString(),
    description: content.description,
    ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
    ...(content.tools !== undefined ? { approved_tools: [...content.tools] } : {}),
    ...(content.resources !== undefined ? { approved_resources: [...content.resources] } : {}),
  };
}

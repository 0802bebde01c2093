import type { Decider } from '@mission/decider';
import { unknownCommand } from '@mission/decider';
import { missionBlobBytes } from '../blob/mission-blob.js';
import { assertMissionProposal } from '../blob/mission-proposal.js';
import { isMissionS256, missionS256 } from '../blob/mission-s256.js';
import { InvalidRequestError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { assertDate, assertOptionalDate, assertText } from '../shared/guards.js';
import { isSha256Base64url } from '../shared/sha256.js';
import { isBoundedText } from '../shared/text.js';
import { isPendingId } from './pending-id.js';
import { proposalContentDigest } from './proposal-content.js';
import type { ApproveProposal, DeclineProposal, PersonPrincipal, ProposalCommand, SubmitProposal } from './proposal.commands.js';
import { ProposalAlreadyDecidedError, ProposalNotFoundError } from './proposal.errors.js';
import type { ProposalEvent, ProposalSubmittedData } from './proposal.events.js';
import { initialProposalState, proposalBlobFields, proposalExists, type Proposal, type ProposalState } from './proposal.state.js';

/**
 * The mission proposal aggregate (stream `psproposal-<pending_id>`, DESIGN 3.1): an agent submits, a
 * person owning the agent takes exactly one decision — approve (the blob is serialized once, its
 * digest recorded) or decline. Refusals are typed errors; a person who does not own the agent gets
 * the same `not_found` as for an unknown id.
 */
export const proposalDecider: Decider<ProposalCommand, ProposalEvent, ProposalState> = {
  initialState: initialProposalState,

  decide(command, state) {
    switch (command.type) {
      case 'SubmitProposal':
        return decideSubmit(command, state);
      case 'ApproveProposal':
        return decideApprove(command, state);
      case 'DeclineProposal':
        return decideDecline(command, state);
      default:
        return unknownCommand(command, () => new InvalidCommandError('unknown proposal command'));
    }
  },

  evolve(state, event) {
    if (event.type === 'ProposalSubmitted') return submitted(event.data);
    if (!proposalExists(state) || state.status !== 'pending') return state;
    if (event.type === 'ProposalApproved') {
      const data = event.data;
      return {
        ...state,
        status: 'approved',
        approval: {
          s256: data.s256,
          approvedBy: data.approved_by,
          tenant: data.tenant,
          approvedAt: new Date(data.approved_at),
          ...(data.expires_at !== undefined ? { expiresAt: new Date(data.expires_at) } : {}),
        },
      };
    }
    return { ...state, status: 'declined', decline: { declinedBy: event.data.declined_by, declinedAt: new Date(event.data.declined_at) } };
  },
};

function submitted(data: ProposalSubmittedData): Proposal {
  return { status: 'pending', pendingId: data.pending_id, agent: data.agent, agentJkt: data.agent_jkt, contentDigest: data.content_digest, submittedAt: new Date(data.submitted_at) };
}

function decideSubmit(command: SubmitProposal, state: ProposalState): ProposalEvent[] {
  if (!isPendingId(command.pendingId)) throw new InvalidCommandError('pendingId must be pnd_ followed by 22 base64url characters');
  if (!isBoundedText(command.agent, 2048)) throw new InvalidCommandError('agent must be a non-empty identifier');
  if (!isSha256Base64url(command.agentJkt)) throw new InvalidCommandError('agentJkt must be a SHA-256 JWK thumbprint in base64url');
  assertMissionProposal(command.proposal, 'proposal');
  assertDate(command.now, 'now');
  if (proposalExists(state)) throw new InvalidCommandError('a proposal already exists on this stream');
  const { proposal } = command;
  if (proposal.expires_at !== undefined && Date.parse(proposal.expires_at) <= command.now.getTime()) throw new InvalidRequestError('expires_at must be in the future');
  return [
    {
      type: 'ProposalSubmitted',
      data: {
        pending_id: command.pendingId,
        agent: command.agent,
        agent_jkt: command.agentJkt,
        content_digest: proposalContentDigest(proposal),
        submitted_at: command.now.toISOString(),
      },
    },
  ];
}

/** Checks shared by both decisions, in the order that discloses nothing to a person who does not own the agent. */
function decidable(command: ApproveProposal | DeclineProposal, state: ProposalState): Proposal {
  assertPerson(command.person);
  if (typeof command.ownsAgent !== 'boolean') throw new InvalidCommandError('ownsAgent must be a boolean');
  assertDate(command.now, 'now');
  if (!proposalExists(state)) throw new ProposalNotFoundError('absent');
  if (!command.ownsAgent) throw new ProposalNotFoundError('not_owner');
  if (state.status !== 'pending') throw new ProposalAlreadyDecidedError();
  return state;
}

function decideApprove(command: ApproveProposal, state: ProposalState): ProposalEvent[] {
  assertText(command.approver, 'approver', 2048);
  if (!isMissionS256(command.s256)) throw new InvalidCommandError('s256 must be a mission digest');
  assertOptionalDate(command.expiresAt, 'expiresAt');
  const proposal = decidable(command, state);

  assertMissionProposal(command.content, 'content');
  const fields = proposalBlobFields(proposal, command.content, { approver: command.approver, now: command.now, ...(command.expiresAt ? { expiresAt: command.expiresAt } : {}) });
  if (fields.expires_at !== undefined && Date.parse(fields.expires_at) <= command.now.getTime()) throw new InvalidRequestError('expires_at must be in the future');
  if (missionS256(missionBlobBytes(fields)) !== command.s256) throw new InvalidCommandError('s256 is not the digest of the blob this approval serializes');

  return [
    {
      type: 'ProposalApproved',
      data: {
        pending_id: proposal.pendingId,
        s256: command.s256,
        approved_by: command.person.id,
        tenant: command.person.tenant,
        approved_at: fields.approved_at,
        ...(fields.expires_at !== undefined ? { expires_at: fields.expires_at } : {}),
      },
    },
  ];
}

function decideDecline(command: DeclineProposal, state: ProposalState): ProposalEvent[] {
  const proposal = decidable(command, state);
  return [{ type: 'ProposalDeclined', data: { pending_id: proposal.pendingId, declined_by: command.person.id, declined_at: command.now.toISOString() } }];
}

function assertPerson(person: PersonPrincipal): void {
  if (typeof person !== 'object' || person === null || !isBoundedText(person.id, 2048) || !isBoundedText(person.tenant, 256)) {
    throw new InvalidCommandError('person must be a principal {id, tenant} with non-empty strings');
  }
}

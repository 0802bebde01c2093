import type { DomainEvent } from '@mission/decider';
import { assertMissionProposal, type MissionProposal } from '../blob/mission-proposal.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { canonicalJson } from '../shared/json.js';
import { sha256Base64url } from '../shared/sha256.js';
import { isPendingId } from './pending-id.js';

/**
 * Spec 3 rule 5, 1 item 7 (ADR 0019 part B, issue 12 defect 4): the content of a proposal — the mission
 * body's `description`, `tools`, `resources` and proposed `expires_at` — lives only on its own deletable
 * stream `psproposalbody-<pending_id>` until approval, and from then on only in `psblob-<s256>`. The
 * proposal stream keeps who proposed, when, and the digest of the content; the mission log keeps what
 * the tombstone needs (s256, state, expiry). Deleting the body therefore deletes the content.
 */
export const PROPOSAL_BODY_STREAM_CATEGORY = 'psproposalbody';
export const PROPOSAL_CONTENT_RECORDED = 'ProposalContentRecorded';

export interface ProposalContentRecordedData extends MissionProposal {
  readonly pending_id: string;
}

export type ProposalContentRecorded = DomainEvent<'ProposalContentRecorded', ProposalContentRecordedData>;

export function proposalBodyStreamName(pendingId: string): string {
  if (!isPendingId(pendingId)) throw new InvalidCommandError('pending id must be pnd_ followed by 22 base64url characters');
  return `${PROPOSAL_BODY_STREAM_CATEGORY}-${pendingId}`;
}

/** The one event of `psproposalbody-<pending_id>`. */
export function proposalContentEvent(pendingId: string, proposal: MissionProposal): ProposalContentRecorded {
  if (!isPendingId(pendingId)) throw new InvalidCommandError('pending id must be pnd_ followed by 22 base64url characters');
  assertMissionProposal(proposal, 'proposal');
  return {
    type: PROPOSAL_CONTENT_RECORDED,
    data: {
      pending_id: pendingId,
      description: proposal.description,
      ...(proposal.tools !== undefined ? { tools: [...proposal.tools] } : {}),
      ...(proposal.resources !== undefined ? { resources: [...proposal.resources] } : {}),
      ...(proposal.expires_at !== undefined ? { expires_at: proposal.expires_at } : {}),
    },
  };
}

/** The proposal read back from its content event (undefined when the event is not one). */
export function proposalFromContentEvent(event: { readonly type: string; readonly data: Record<string, unknown> }): MissionProposal | undefined {
  if (event.type !== PROPOSAL_CONTENT_RECORDED) return undefined;
  const proposal = { ...event.data };
  delete proposal['pending_id'];
  assertMissionProposal(proposal, 'recorded proposal content');
  return proposal;
}

/** base64url SHA-256 of the JCS of the proposal: binds ProposalSubmitted to its content without holding it. */
export function proposalContentDigest(proposal: MissionProposal): string {
  assertMissionProposal(proposal, 'proposal');
  return sha256Base64url(canonicalJson({ ...proposal } as Parameters<typeof canonicalJson>[0]));
}

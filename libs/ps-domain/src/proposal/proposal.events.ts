import type { DomainEvent } from '@mission/decider';

/** Stream `psproposal-<pending_id>`. Times are RFC 3339 (`toISOString`). */
export interface ProposalSubmittedData {
  readonly pending_id: string;
  readonly agent: string;
  readonly agent_jkt: string;
  /**
   * `proposalContentDigest` of the content, which itself lives only on the deletable
   * `psproposalbody-<pending_id>` (then in `psblob-<s256>`): spec 3 rule 5, ADR 0019.
   */
  readonly content_digest: string;
  readonly submitted_at: string;
}

export interface ProposalApprovedData {
  readonly pending_id: string;
  /** The Mission Reference digest of the blob serialized at this approval. */
  readonly s256: string;
  /** The approving person's principal id. */
  readonly approved_by: string;
  /** The approving person's tenant: the mission's tenant. */
  readonly tenant: string;
  /** Equal to the blob's `approved_at`. */
  readonly approved_at: string;
  /** The blob's `expires_at` (the override, else the proposal's); absent when the mission never expires. */
  readonly expires_at?: string;
}

export interface ProposalDeclinedData {
  readonly pending_id: string;
  readonly declined_by: string;
  readonly declined_at: string;
}

export type ProposalSubmitted = DomainEvent<'ProposalSubmitted', ProposalSubmittedData>;
export type ProposalApproved = DomainEvent<'ProposalApproved', ProposalApprovedData>;
export type ProposalDeclined = DomainEvent<'ProposalDeclined', ProposalDeclinedData>;
export type ProposalEvent = ProposalSubmitted | ProposalApproved | ProposalDeclined;

export const PROPOSAL_EVENT_TYPES = ['ProposalSubmitted', 'ProposalApproved', 'ProposalDeclined'] as const satisfies readonly ProposalEvent['type'][];

import type { MissionProposal } from '../blob/mission-proposal.js';

/** An authenticated person (Management Principal with role `person`, DESIGN 3.2). */
export interface PersonPrincipal {
  readonly id: string;
  readonly tenant: string;
}

/** `POST /mission` without `operation` (DESIGN 3.1). The application generates the pending id. */
export interface SubmitProposal {
  readonly type: 'SubmitProposal';
  readonly pendingId: string;
  /** The authenticated agent (Agent Token `sub`). */
  readonly agent: string;
  /** JWK thumbprint (RFC 7638, SHA-256, base64url) of the key the agent signed with. */
  readonly agentJkt: string;
  /** From `parseMissionProposal`. */
  readonly proposal: MissionProposal;
  readonly now: Date;
}

/**
 * `POST /mission/approvals` with `decision: "approve"` (DESIGN 3.1). The application builds the blob
 * with `proposalBlobFields(state, content, {approver, now, expiresAt})` → `missionBlobBytes` → `missionS256`
 * and passes the digest; the decider rebuilds the blob and refuses a digest that does not match.
 */
export interface ApproveProposal {
  readonly type: 'ApproveProposal';
  readonly person: PersonPrincipal;
  /** Whether the principal registry says this person owns the proposal's agent. */
  readonly ownsAgent: boolean;
  /** The PS issuer identifier (the blob's `approver`). */
  readonly approver: string;
  /** The proposal's content as recorded on `psproposalbody-<pending_id>` (checked against the submitted digest). */
  readonly content: MissionProposal;
  readonly s256: string;
  /** The person's `expires_at` override; otherwise the proposal's own (if any). */
  readonly expiresAt?: Date;
  readonly now: Date;
}

/** `POST /mission/approvals` with `decision: "decline"`. */
export interface DeclineProposal {
  readonly type: 'DeclineProposal';
  readonly person: PersonPrincipal;
  readonly ownsAgent: boolean;
  readonly now: Date;
}

export type ProposalCommand = SubmitProposal | ApproveProposal | DeclineProposal;

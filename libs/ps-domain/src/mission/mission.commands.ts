import type { TrackedTokensState } from '../tokens/tracked-token.state.js';
import type { ManagementCaller } from './management-caller.js';
import type { TerminationRequest } from './termination-rules.js';

/**
 * Spec 2.8: the input of the token-impact summary. Every command that may record a termination (a
 * terminate, or a due expiry recorded first) can carry the mission's Tracked Auth Tokens
 * (`pstokens-<s256>`, folded) as read just before deciding; a MissionTerminated it records then carries
 * `token_impact`. The application passes them whenever a termination can result.
 */
export interface TokenImpactInput {
  readonly trackedTokens?: TrackedTokensState;
}

/**
 * Records an approved mission on `psmission-<s256>` (after ProposalApproved; build it with
 * `missionApprovalCommand`). A retry with identical data decides nothing.
 */
export interface ApproveMission {
  readonly type: 'ApproveMission';
  /** The PS issuer identifier: the `approver` half of the Mission Reference. */
  readonly approver: string;
  readonly missionS256: string;
  /** The Owning Agent (the blob's `agent`). */
  readonly agent: string;
  /** The approving person's principal id. */
  readonly approvedBy: string;
  readonly tenant: string;
  readonly expiresAt?: Date;
  /** The proposal it came from: whose `psproposalbody-<pending_id>` a body deletion removes too (spec 3 rule 5). */
  readonly pendingId?: string;
  /** The approval instant: the blob's `approved_at`. */
  readonly now: Date;
}

/** Spec 4.1 `status` by an authenticated caller: logged as MissionStatusRead (spec 6). */
export interface ReadMissionStatus extends TokenImpactInput {
  readonly type: 'ReadMissionStatus';
  readonly caller: ManagementCaller;
  readonly now: Date;
}

/** Spec 4.2 `terminate`. Members are the raw request values; the decider checks them (spec 4.2, 5.4). */
export interface TerminateMission extends TerminationRequest, TokenImpactInput {
  readonly type: 'TerminateMission';
  readonly caller: ManagementCaller;
  readonly now: Date;
}

/** Spec 4.3 `delegation_tree`, after the page was computed: logged as DelegationTreeRead (spec 6). */
export interface ReadDelegationTree extends TokenImpactInput {
  readonly type: 'ReadDelegationTree';
  readonly caller: ManagementCaller;
  /** Nodes returned in this page. */
  readonly nodeCount?: number;
  readonly complete?: boolean;
  readonly now: Date;
}

/**
 * Spec 3 (`expires_at` reached): from the expiry process manager or any decision path that only
 * needs the expiry applied (e.g. before issuing a token). Records the expiry when due, otherwise
 * decides nothing.
 */
export interface ApplyMissionExpiry extends TokenImpactInput {
  readonly type: 'ApplyMissionExpiry';
  readonly now: Date;
}

/**
 * Spec 3 rule 5, spec 8 "terminal state retention": an administrator deletes the body
 * (`psblob-<s256>`) of a terminated mission; `psmission-<s256>` stays as the tombstone. Logged as
 * MissionBlobDeleted; a repeat after the deletion decides nothing.
 */
export interface DeleteMissionBlob extends TokenImpactInput {
  readonly type: 'DeleteMissionBlob';
  readonly caller: ManagementCaller;
  readonly requestId: string;
  readonly purpose: string;
  readonly now: Date;
}

/** Spec 7 codes a refused management request of an authorized caller is logged with (spec 6, ADR 0018). */
export const REFUSAL_CODES = ['invalid_request', 'invalid_termination_reason', 'idempotency_conflict'] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

/**
 * Spec 6, 2.8 (ADR 0018): a management request of a caller **authorized for the mission** that the PS
 * refused (a reason its role may not record, an administrator without `purpose`, an unusable
 * replacement, a reused `request_id`). Logged as ManagementRequestRefused with the decision `deny`; it
 * changes no state. An unauthorized caller is never logged here (absent ≡ not authorized, spec 5.9): the
 * application sends that to the security audit.
 */
export interface RecordRefusal extends TokenImpactInput {
  readonly type: 'RecordRefusal';
  readonly caller: ManagementCaller;
  readonly operation: 'terminate';
  readonly error: RefusalCode;
  readonly requestId?: string;
  /** The reason the caller asked for (a spec 2.4 reason; an unknown one is refused before lookup). */
  readonly requestedReason?: string;
  readonly purpose?: string;
  readonly now: Date;
}

export type MissionCommand = ApproveMission | ReadMissionStatus | TerminateMission | ReadDelegationTree | ApplyMissionExpiry | DeleteMissionBlob | RecordRefusal;

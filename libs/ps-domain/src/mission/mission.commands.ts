import type { ManagementCaller } from './management-caller.js';
import type { TerminationRequest } from './termination-rules.js';

/**
 * Records an approved mission on `psmission-<s256>` (after ProposalApproved; build it with
 * `missionApprovalCommand`). A retry with identical data decides nothing.
 */
export interface ApproveMission {
  readonly type: 'approve';
  /** The PS issuer identifier: the `approver` half of the Mission Reference. */
  readonly approver: string;
  readonly missionS256: string;
  /** The Owning Agent (the blob's `agent`). */
  readonly agent: string;
  /** The approving person's principal id. */
  readonly approvedBy: string;
  readonly tenant: string;
  readonly expiresAt?: Date;
  /** The approval instant: the blob's `approved_at`. */
  readonly now: Date;
}

/** Spec 4.1 `status` by an authenticated caller: logged as MissionStatusRead (spec 6). */
export interface ReadMissionStatus {
  readonly type: 'readStatus';
  readonly caller: ManagementCaller;
  readonly now: Date;
}

/** Spec 4.2 `terminate`. Members are the raw request values; the decider checks them (spec 4.2, 5.4). */
export interface TerminateMission extends TerminationRequest {
  readonly type: 'terminate';
  readonly caller: ManagementCaller;
  readonly now: Date;
}

/** Spec 4.3 `delegation_tree`, after the page was computed: logged as DelegationTreeRead (spec 6). */
export interface ReadDelegationTree {
  readonly type: 'readTree';
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
export interface ApplyMissionExpiry {
  readonly type: 'applyExpiry';
  readonly now: Date;
}

/**
 * Spec 3 rule 5, spec 8 "terminal state retention": an administrator deletes the body
 * (`psblob-<s256>`) of a terminated mission; `psmission-<s256>` stays as the tombstone. Logged as
 * MissionBlobDeleted; a repeat after the deletion decides nothing.
 */
export interface DeleteMissionBlob {
  readonly type: 'deleteBlob';
  readonly caller: ManagementCaller;
  readonly requestId: string;
  readonly purpose: string;
  readonly now: Date;
}

export type MissionCommand = ApproveMission | ReadMissionStatus | TerminateMission | ReadDelegationTree | ApplyMissionExpiry | DeleteMissionBlob;

import type { DomainEvent } from '@mission/decider';
import type { Actor } from '../shared/actor.js';
import type { TokenImpactData } from '../tokens/token-impact.js';
import type { AuthorizationRecord } from './management-caller.js';
import type { RefusalCode } from './mission.commands.js';
import type { TerminationReason } from './termination-rules.js';

/**
 * Spec 2.8: members every event on `psmission-<s256>` carries. Never keys, raw tokens or the blob.
 * Times are RFC 3339 (`toISOString`).
 */
export interface MissionLogData {
  /** The Mission Reference: `{approver, s256}` (spec 1.1). */
  readonly approver: string;
  readonly mission_s256: string;
  /** PS-local order: 1 for MissionApproved, then +1 per event of the stream. */
  readonly sequence: number;
  readonly occurred_at: string;
  /** The authenticated actor and the role the decision used (`agent`, `person`, `admin`; `system` for the scheduler). */
  readonly actor: Actor;
  readonly authorization: AuthorizationRecord;
}

export interface MissionApprovedData extends MissionLogData {
  readonly agent: string;
  readonly approved_by: string;
  readonly tenant: string;
  readonly approved_at: string;
  readonly expires_at?: string;
  /** The proposal (`psproposal-<pending_id>`); its content stream is removed with the body (spec 3 rule 5). */
  readonly pending_id?: string;
}

/** Spec 3: the one active → terminated transition (spec 2.4 reasons, spec 6 "termination"). */
export interface MissionTerminatedData extends MissionLogData {
  readonly reason: TerminationReason;
  /** For `expired`, the mission's `expires_at` (the instant it ended); otherwise the commit time. */
  readonly terminated_at: string;
  /** Absent only for expiry (the scheduler sends no request). */
  readonly request_id?: string;
  readonly purpose?: string;
  /** `superseded` only: the validated replacement (spec 3 table). */
  readonly replacement_s256?: string;
  /**
   * Spec 2.8 token-impact summary: the Tracked Auth Tokens this termination put under revocation (ADR
   * 0013). Present whenever the deciding path passed the mission's tokens (every PS path does except the
   * expiry check of `POST /token`).
   */
  readonly token_impact?: TokenImpactData;
}

/**
 * Spec 3 / 6: an authorized terminate after termination; the first reason and timestamp stand. No
 * token-impact summary: a late request changes no token (the first termination's `token_impact` and the
 * revocation events stand); the `token_residual` answered to it is kept with its idempotency record.
 */
export interface LateTerminationRequestedData extends MissionLogData {
  readonly requested_reason: TerminationReason;
  readonly request_id: string;
  readonly purpose?: string;
  readonly replacement_s256?: string;
  /** The recorded (first) termination, returned to the caller. */
  readonly termination_reason: TerminationReason;
  readonly terminated_at: string;
}

/** Spec 6 "status read": every authorized `status`. */
export interface MissionStatusReadData extends MissionLogData {
  readonly mission_status: 'active' | 'terminated';
  readonly termination_reason?: TerminationReason;
}

/** Spec 6 "tree read": every authorized `delegation_tree` page. */
export interface DelegationTreeReadData extends MissionLogData {
  readonly node_count?: number;
  readonly complete?: boolean;
}

/**
 * Spec 3 rule 5, spec 8: the mission body (`psblob-<s256>`) was deleted by an administrator; this
 * stream stays as the tombstone that keeps the reference terminated. Only after termination.
 */
export interface MissionBlobDeletedData extends MissionLogData {
  /** The deleted stream (`psblob-<s256>`); the blob itself never enters the log. */
  readonly blob_stream: string;
  /** The proposal's content stream (`psproposalbody-<pending_id>`), deleted with the body when it still exists. */
  readonly proposal_body_stream?: string;
  readonly request_id: string;
  readonly purpose: string;
  /** The recorded (first) termination, which the tombstone keeps answering. */
  readonly termination_reason: TerminationReason;
  readonly terminated_at: string;
}

/**
 * Spec 6, 2.8 (ADR 0018): an authorized caller's management request the PS refused; `authorization` is
 * `{decision: "deny", policy}` of the caller's role. Never the raw replacement reference (spec 5.9: the
 * security audit keeps its keyed digest).
 */
export interface ManagementRequestRefusedData extends MissionLogData {
  readonly operation: 'terminate';
  /** The spec 7 error the caller received. */
  readonly error: RefusalCode;
  readonly request_id?: string;
  readonly requested_reason?: TerminationReason;
  readonly purpose?: string;
}

export type MissionApproved = DomainEvent<'MissionApproved', MissionApprovedData>;
export type MissionTerminated = DomainEvent<'MissionTerminated', MissionTerminatedData>;
export type LateTerminationRequested = DomainEvent<'LateTerminationRequested', LateTerminationRequestedData>;
export type MissionStatusRead = DomainEvent<'MissionStatusRead', MissionStatusReadData>;
export type DelegationTreeRead = DomainEvent<'DelegationTreeRead', DelegationTreeReadData>;
export type MissionBlobDeleted = DomainEvent<'MissionBlobDeleted', MissionBlobDeletedData>;

export type ManagementRequestRefused = DomainEvent<'ManagementRequestRefused', ManagementRequestRefusedData>;

export type MissionEvent = MissionApproved | MissionTerminated | LateTerminationRequested | MissionStatusRead | DelegationTreeRead | MissionBlobDeleted | ManagementRequestRefused;

export const MISSION_EVENT_TYPES = ['MissionApproved', 'MissionTerminated', 'LateTerminationRequested', 'MissionStatusRead', 'DelegationTreeRead', 'MissionBlobDeleted', 'ManagementRequestRefused'] as const satisfies readonly MissionEvent['type'][];

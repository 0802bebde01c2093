import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { CascadeMode } from '../mission/parent-link.js';
import type { ChildActor } from './child-actor.js';
import { opaqueIdFromBytes } from '../shared/opaque-id.js';
import type { ChildDenialReason } from './child-denial-reasons.js';

export interface MissionReference {
  readonly id: string;
  readonly issuer: string;
  readonly authority_hash: string;
}

/** Spec 2.6 `attenuation`: which checks ran and what they found; per child entry, the parent entry that justified it. */
export interface AttenuationRecord {
  readonly result: 'strict_subset' | 'not_strict_subset' | 'not_evaluated';
  /** The spec 4.1 steps that were evaluated, in order (e.g. `parent_active`, `child_actor`, `strict_subset`). */
  readonly checks: readonly string[];
  readonly requested_authority?: AuthoritySet;
  readonly approved_authority?: AuthoritySet;
  /** Spec 5 rule 7: child entry i is justified by parent entry `justified_by[i]`. */
  readonly justified_by?: readonly number[];
  readonly requested_expires_at?: string;
  readonly approved_expires_at?: string;
  /** Denied records: the check that refused (the last of `checks`; every earlier one passed). */
  readonly refused_by?: string;
  /** Safe to show: names members, never quotes values. */
  readonly detail?: string;
}

/** Spec 2.6 `fanout`, per justifying parent entry. */
export interface FanOutRecord {
  readonly parent_entry: number;
  /** Non-terminal children drawing on the entry, this creation included when created. */
  readonly active_children: number;
  readonly max_children?: number;
}

/**
 * Spec 2.6 Child Evidence. Audit material only: it grants nothing. `child` is REQUIRED: for a `denied`
 * attempt it names the identifier the attempt was given (no mission is ever created under it) and the
 * hash of the requested Authority Set. Records written before this rule may lack it.
 */
export interface ChildEvidence {
  readonly evidence_id: string;
  readonly parent: MissionReference;
  readonly child?: MissionReference;
  readonly child_actor: ChildActor;
  /** The authenticated client that submitted the creation request. */
  readonly requested_by: string;
  readonly attenuation: AttenuationRecord;
  readonly fanout?: readonly FanOutRecord[];
  readonly cascade_mode: CascadeMode;
  readonly decision: 'created' | 'denied';
  readonly denial_reason?: ChildDenialReason;
  /** Spec 2.6 "approval or policy basis": e.g. `policy:allow`, `policy:short-lived`. */
  readonly approval_basis?: string;
  readonly created_at: string;
}

/**
 * Denied creations are recorded on `evidence-<parent mission_id>` (DESIGN 1 stream names; one
 * `ChildCreationDenied` each); `created` evidence travels in `ChildMissionAttached` on the parent's own
 * stream (decision 0009).
 */
export const CHILD_EVIDENCE_STREAM_CATEGORY = 'evidence';

export function childEvidenceStreamName(parentMissionId: string): string {
  return `${CHILD_EVIDENCE_STREAM_CATEGORY}-${parentMissionId}`;
}

export interface ChildCreationDeniedData {
  readonly parent_mission_id: string;
  readonly evidence: ChildEvidence;
}

/** `dlg_` + 22 base64url characters: names a creation attempt (`evidence_id`) and, once created, its `parent.delegation_id`. */
export function delegationIdFromBytes(bytes: Uint8Array): string {
  return opaqueIdFromBytes('dlg_', bytes);
}

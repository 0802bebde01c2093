import {
  activeChildCount, authorityHash, type AttenuationRecord, type AuthoritySet, type CascadeMode, type ChildActor, type ChildDenialReason,
  type ChildEvidence, type FanOutRecord, type Mission, type MissionIntent,
} from '@mission/issuer-domain';

/** What evidence records of a Child Mission creation request (spec 4.1) quote. */
export interface EvidenceRequest {
  readonly client: { readonly client_id: string };
  readonly childActor: ChildActor;
  readonly intent: MissionIntent;
  readonly authoritySet: AuthoritySet;
  readonly cascadeMode: CascadeMode;
}

/**
 * Spec 2.6 Child Evidence as this issuer records it. `attenuation.checks` lists exactly the spec 4.1 checks
 * that ran, in order; a `denied` record names the one that refused (`refused_by`) — every check before it
 * passed, none after it ran — and `result` says what the strict-subset check found: `strict_subset` only if
 * it ran and passed, `not_strict_subset` only if it ran and refused, else `not_evaluated`.
 */

/** The spec 4.1 checks in order (steps 3–10), as named in evidence. */
export const CREATION_CHECKS = ['parent_match', 'parent_active', 'delegation_permitted', 'child_actor', 'strict_subset', 'fanout', 'policy', 'commit'] as const;
export type CreationCheck = (typeof CREATION_CHECKS)[number];

export interface EvidenceIds {
  readonly evidenceId: string;
  /** The identifier this attempt was given; a denied attempt never creates a mission under it. */
  readonly childMissionId: string;
}

export interface CreatedOutcome {
  readonly parent: Mission;
  readonly justifiedBy: readonly number[];
  readonly expiresAt: Date;
  readonly fanout: FanOutRecord[];
  readonly basis: string;
}

export function createdEvidence(issuer: string, request: EvidenceRequest, outcome: CreatedOutcome, ids: EvidenceIds, now: Date): ChildEvidence {
  return {
    evidence_id: ids.evidenceId,
    parent: { id: outcome.parent.missionId, issuer, authority_hash: outcome.parent.authorityHash },
    child: { id: ids.childMissionId, issuer, authority_hash: authorityHash(issuer, request.authoritySet) },
    child_actor: request.childActor,
    requested_by: request.client.client_id,
    attenuation: {
      ...attenuation(request, CREATION_CHECKS, 'strict_subset'),
      approved_authority: request.authoritySet,
      justified_by: outcome.justifiedBy,
      approved_expires_at: outcome.expiresAt.toISOString(),
    },
    fanout: outcome.fanout,
    cascade_mode: request.cascadeMode,
    decision: 'created',
    approval_basis: outcome.basis,
    created_at: now.toISOString(),
  };
}

export interface Denial {
  readonly reason: ChildDenialReason;
  readonly message: string;
  /** The checks that ran, the last of them the one that refused. */
  readonly checksRun: readonly CreationCheck[];
}

export function deniedEvidence(issuer: string, request: EvidenceRequest, parent: Mission, denial: Denial, ids: EvidenceIds, now: Date): ChildEvidence {
  const refusedBy = denial.checksRun[denial.checksRun.length - 1];
  const subsetRan = denial.checksRun.includes('strict_subset');
  const result: AttenuationRecord['result'] = !subsetRan ? 'not_evaluated' : refusedBy === 'strict_subset' ? 'not_strict_subset' : 'strict_subset';
  const fanout = fanOutCounters(parent);
  return {
    evidence_id: ids.evidenceId,
    parent: { id: parent.missionId, issuer, authority_hash: parent.authorityHash },
    // Spec 2.6: `child` is REQUIRED — the identifier this attempt was given and the hash of the requested set.
    child: { id: ids.childMissionId, issuer, authority_hash: authorityHash(issuer, request.authoritySet) },
    child_actor: request.childActor,
    requested_by: request.client.client_id,
    attenuation: { ...attenuation(request, denial.checksRun, result), ...(refusedBy !== undefined ? { refused_by: refusedBy } : {}), detail: denial.message },
    ...(fanout.length > 0 ? { fanout } : {}),
    cascade_mode: request.cascadeMode,
    decision: 'denied',
    denial_reason: denial.reason,
    created_at: now.toISOString(),
  };
}

function attenuation(request: EvidenceRequest, checks: readonly string[], result: AttenuationRecord['result']): AttenuationRecord {
  return { result, checks: [...checks], requested_authority: request.authoritySet, requested_expires_at: request.intent.expires_at };
}

/**
 * Spec 2.6 `fanout` ("REQUIRED when fan-out controls apply") for a refused attempt: the counters of every
 * parent entry that has `max_children`, as they stood when the attempt was refused (this attempt not counted).
 */
function fanOutCounters(parent: Mission): FanOutRecord[] {
  const records: FanOutRecord[] = [];
  parent.authoritySet.forEach((entry, index) => {
    const max = entry.delegation?.children?.max_children;
    if (max !== undefined) records.push({ parent_entry: index, active_children: activeChildCount(parent, index), max_children: max });
  });
  return records;
}

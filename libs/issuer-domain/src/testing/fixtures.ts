import type { ChildEvidence } from '../children/child-evidence.js';
import { authorityHash } from '../authority-set/authority-hash.js';
import type { AuthorityEntry, AuthoritySet } from '../authority-set/authority-set.js';
import type { MissionIntent } from '../mission-intent/mission-intent.js';
import type { CreateMission } from '../mission/mission.commands.js';
import type { MissionCreated } from '../mission/mission.events.js';
import { missionIdFromBytes } from '../mission/mission-id.js';
import type { AttachedChild, Mission } from '../mission/mission.state.js';
import type { ParentLink } from '../mission/parent-link.js';

/** Test data shared by the decider specs (not part of the build). */
export const ISSUER = 'https://issuer.example';
export const T0 = new Date('2026-11-22T09:00:00.000Z');
export const EXPIRES_AT = new Date('2026-11-22T17:00:00.000Z');
export const at = (iso: string): Date => new Date(iso);

export const MISSION_ID = missionIdFromBytes(new Uint8Array(16).fill(1));
export const OTHER_MISSION_ID = missionIdFromBytes(new Uint8Array(16).fill(2));

export const AUTHORITY_SET: AuthoritySet = [
  { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.list', 'invoices.read'] },
];
export const AUTHORITY_HASH = authorityHash(ISSUER, AUTHORITY_SET);

export const INTENT: MissionIntent = {
  goal: 'Reconcile November invoices',
  resources: ['https://erp.example.com/invoices'],
  expires_at: EXPIRES_AT.toISOString(),
};

export const APPROVER = { id: 'alice', role: 'person' };
export const CLIENT = { id: 'agent-a', role: 'client' };
export const ADMIN = { id: 'ops-console', role: 'admin' };
export const EXPIRY_PROCESS = { id: 'mission-expiry', role: 'system' };

export function createCommand(overrides: Partial<CreateMission> = {}): CreateMission {
  return {
    type: 'CreateMission',
    missionId: MISSION_ID,
    issuer: ISSUER,
    clientId: 'agent-a',
    authoritySet: AUTHORITY_SET,
    authorityHash: AUTHORITY_HASH,
    intent: INTENT,
    expiresAt: EXPIRES_AT,
    approvedBy: APPROVER,
    now: T0,
    // A child's record is bounded by its parent (spec 2.1): by default the parent has these fixtures' expiry and intent.
    ...(overrides.parent !== undefined ? { parentBounds: { expiresAt: EXPIRES_AT, intentResources: INTENT.resources } } : {}),
    ...overrides,
  };
}

/** An entry without its `delegation` member: always a strict subset of the entry itself. */
export function withoutDelegation(entry: AuthorityEntry): AuthorityEntry {
  return Object.fromEntries(Object.entries(entry).filter(([member]) => member !== 'delegation')) as unknown as AuthorityEntry;
}

/**
 * The `child` member of AttachChild for children justified by `parentEntryIndexes` of `parentSet`: each child
 * entry is its parent entry without `delegation` (always a strict subset), expiring with the parent.
 */
export function requestedChildWithin(parentSet: AuthoritySet, parentEntryIndexes: readonly number[], expiresAt: Date = EXPIRES_AT, intentResources: readonly string[] = INTENT.resources) {
  const authoritySet: AuthoritySet = parentEntryIndexes.map((index) => withoutDelegation(parentSet[index]!));
  return { authoritySet, expiresAt, intentResources };
}

export const missionCreated: MissionCreated = {
  type: 'MissionCreated',
  data: {
    mission_id: MISSION_ID,
    issuer: ISSUER,
    client_id: 'agent-a',
    authority_set: AUTHORITY_SET,
    authority_hash: AUTHORITY_HASH,
    intent: INTENT,
    expires_at: EXPIRES_AT.toISOString(),
    approved_by: APPROVER,
    state: 'active',
    version: 1,
    occurred_at: T0.toISOString(),
  },
};

/** The members AttachChild needs beyond the child and its entries (grant, cascade mode, `created` evidence). */
export function attachmentExtras(childMissionId: string, n: number, now: Date, parentSet: AuthoritySet = AUTHORITY_SET, parentEntryIndexes: readonly number[] = [0]) {
  const grantId = `grt_${String(n).padStart(2, '0')}${'A'.repeat(19)}A`;
  const grantExpiresAt = new Date(now.getTime() + 60_000);
  const child = requestedChildWithin(parentSet, parentEntryIndexes);
  const evidence: ChildEvidence = {
    evidence_id: `evd_${n}`,
    parent: { id: MISSION_ID, issuer: ISSUER, authority_hash: AUTHORITY_HASH },
    child: { id: childMissionId, issuer: ISSUER, authority_hash: AUTHORITY_HASH },
    child_actor: { sub: `child-agent-${n}` },
    requested_by: CLIENT.id,
    attenuation: { result: 'strict_subset', checks: ['strict_subset'] },
    cascade_mode: 'immediate',
    decision: 'created',
    created_at: now.toISOString(),
  };
  return {
    command: { grantId, grantExpiresAt, cascadeMode: 'immediate' as const, evidence, child },
    data: {
      grant_id: grantId, grant_expires_at: grantExpiresAt.toISOString(), cascade_mode: 'immediate' as const,
      child_authority_hash: authorityHash(ISSUER, child.authoritySet), child_expires_at: child.expiresAt.toISOString(), evidence,
    },
  };
}

/** The cascade process manager (spec 3.2), as the actor of `CascadeMission` commands. */
export const CASCADE_PROCESS = { id: 'mission-cascade', role: 'system' };

/** A Mission record as the mission decider folds it, for the pure child checks (lineage state, spec 4.1 steps). */
export function missionRecord(overrides: Partial<Mission> = {}): Mission {
  const children = overrides.children ?? new Map<string, AttachedChild>();
  return {
    lifecycle: 'active',
    missionId: MISSION_ID,
    issuer: ISSUER,
    clientId: 'agent-a',
    authoritySet: AUTHORITY_SET,
    authorityHash: AUTHORITY_HASH,
    intent: INTENT,
    expiresAt: EXPIRES_AT,
    createdAt: T0,
    approvedBy: APPROVER,
    version: 1,
    updatedAt: T0,
    nonces: new Map(),
    children,
    // As the fold keeps it: the children not yet terminal.
    openChildren: new Map([...children].filter(([, child]) => !child.terminal)),
    ...overrides,
  };
}

/** A spec 2.3 `parent` member naming `OTHER_MISSION_ID` (a child of a root mission unless told otherwise). */
export function parentLink(overrides: Partial<ParentLink> = {}): ParentLink {
  return { id: OTHER_MISSION_ID, issuer: ISSUER, authority_hash: AUTHORITY_HASH, depth: 1, cascade_mode: 'immediate', ...overrides };
}

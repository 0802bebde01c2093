import { isAuthorityHash } from '../authority-set/authority-hash.js';
import { InvalidCommandError } from '../shared/errors.js';
import { isValidDate, parseRfc3339 } from '@mission/decider';
import { isMissionId } from './mission-id.js';

export const CASCADE_MODES = ['immediate', 'bounded_staleness', 'status_required'] as const;
export type CascadeMode = (typeof CASCADE_MODES)[number];

/**
 * The `parent` member of a Child Mission (spec 2.3). Lineage and audit data only: it grants no
 * authority. Immutable after creation. Root missions have none.
 */
export interface ParentLink {
  readonly id: string;
  readonly issuer: string;
  readonly authority_hash: string;
  /** 1 for a child of a root mission, +1 per generation. */
  readonly depth: number;
  readonly delegation_id?: string;
  readonly cascade_mode: CascadeMode;
  /** RFC 3339. */
  readonly created_at?: string;
}

/** Checks a parent link against the child it is attached to (spec 2.1, 2.3). */
export function assertParentLink(parent: ParentLink, child: { missionId: string; issuer: string }): void {
  const bad = (rule: string): never => {
    throw new InvalidCommandError(`parent ${rule}`);
  };
  if (typeof parent !== 'object' || parent === null) bad('must be an object');
  if (!isMissionId(parent.id)) bad('id must be a mission_id');
  if (parent.id === child.missionId) bad('id must differ from the child mission_id');
  if (parent.issuer !== child.issuer) bad('issuer must equal the child issuer (spec 2.3)');
  if (!isAuthorityHash(parent.authority_hash)) bad('authority_hash must be an authority hash');
  if (!Number.isSafeInteger(parent.depth) || parent.depth < 1) bad('depth must be a positive integer');
  if (!(CASCADE_MODES as readonly string[]).includes(parent.cascade_mode)) bad('cascade_mode must be a known cascade mode');
  if (parent.delegation_id !== undefined && (typeof parent.delegation_id !== 'string' || parent.delegation_id.length === 0 || parent.delegation_id.length > 256)) {
    bad('delegation_id must be a non-empty string');
  }
  if (parent.created_at !== undefined && (typeof parent.created_at !== 'string' || !isValidDate(parseRfc3339(parent.created_at)))) {
    bad('created_at must be an RFC 3339 date-time');
  }
}

/** A plain copy without undefined members (event data is JSON). */
export function parentLinkData(parent: ParentLink): ParentLink {
  return {
    id: parent.id,
    issuer: parent.issuer,
    authority_hash: parent.authority_hash,
    depth: parent.depth,
    ...(parent.delegation_id !== undefined ? { delegation_id: parent.delegation_id } : {}),
    cascade_mode: parent.cascade_mode,
    ...(parent.created_at !== undefined ? { created_at: parent.created_at } : {}),
  };
}

import type { JsonObject, JsonValue } from '../shared/json.js';

/** The one RFC 9396 `type` this issuer understands (DESIGN 2.1 `authorization_details_types_supported`). */
export const MISSION_RESOURCE_ACCESS = 'mission_resource_access';

/** A matcher of `allowed_delegates` / `allowed_child_actors`, e.g. `{ "sub_profile": "ai_agent" }`. */
export interface ActorMatcher {
  readonly [member: string]: string;
}

/** `delegation.children` (spec 2.4). Members this issuer does not know are carried unchanged (spec 9.4). */
export interface ChildrenPolicy {
  readonly max_children?: number;
  readonly allowed_child_actors?: readonly ActorMatcher[];
  readonly max_child_depth?: number;
  readonly child_creation_policy?: string;
  readonly [member: string]: JsonValue | undefined;
}

/** `delegation` of an entry. Unknown members are carried unchanged (spec 9.4). */
export interface DelegationPolicy {
  readonly max_depth?: number;
  readonly allowed_delegates?: readonly ActorMatcher[];
  readonly children?: ChildrenPolicy;
  readonly [member: string]: JsonValue | undefined;
}

/** One `mission_resource_access` entry of an Authority Set (DESIGN 2.3, spec 2.1). */
export interface AuthorityEntry {
  readonly type: typeof MISSION_RESOURCE_ACCESS;
  /** Absolute URI, kept byte for byte as approved. */
  readonly resource: string;
  /** Non-empty; in a normalised set de-duplicated and sorted by UTF-16 code unit. */
  readonly actions: readonly string[];
  readonly constraints?: JsonObject;
  readonly delegation?: DelegationPolicy;
}

/** Entries in approved order. */
export type AuthoritySet = readonly AuthorityEntry[];

/** UTF-16 code unit order (what `<` on strings compares), independent of locale. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * DESIGN 2.3 normal form: entries stay in approved order; each entry's `actions` are de-duplicated
 * and sorted by code unit. Idempotent; returns fresh entry objects.
 */
export function normalizeAuthoritySet(set: AuthoritySet): AuthoritySet {
  return set.map((entry) => ({ ...entry, actions: [...new Set(entry.actions)].sort(compareCodeUnits) }));
}

import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { isBoundedText } from '../shared/text.js';

/** Spec 5.3: the roles a management caller can hold towards a mission. `agent` means the Owning Agent. */
export const MANAGEMENT_ROLES = ['agent', 'person', 'admin'] as const;
export type ManagementRole = (typeof MANAGEMENT_ROLES)[number];

/**
 * An authenticated management caller as the application identified it (DESIGN 3.2): an agent by its
 * Agent Token, a person or administrator by the registered thumbprint of its `hwk` key. Whether it
 * may act on a given mission is decided here (`managementRole`), from the mission's state.
 */
export type ManagementCaller =
  | { readonly role: 'agent'; readonly id: string }
  | { readonly role: 'person'; readonly id: string; readonly tenant: string; readonly ownedAgents: readonly string[] }
  | { readonly role: 'admin'; readonly id: string; readonly tenant: string };

/**
 * Published caller-role policy references (spec 8), recorded in every mission log event as the
 * authorization decision's policy.
 */
export const MISSION_POLICIES = {
  /** The caller is the Owning Agent: the blob's `agent` (spec 5.4). */
  agent: 'ps:owning-agent',
  /** The caller is a person of the mission's tenant who owns the mission's agent (DESIGN 3.2). */
  person: 'ps:person-owns-agent',
  /** The caller is an administrator of the mission's tenant (DESIGN 3.2). */
  admin: 'ps:tenant-admin',
  /** The PS scheduler: the mission reached its `expires_at` (spec 3). */
  expiry: 'ps:expires-at',
} as const;
export type MissionPolicy = (typeof MISSION_POLICIES)[keyof typeof MISSION_POLICIES];

/**
 * Spec 2.8: the authorization decision of a logged event and the policy that made it. `deny` only on
 * ManagementRequestRefused (spec 6, ADR 0018): the caller was authorized for the mission, and the policy
 * named refused what it asked.
 */
export interface AuthorizationRecord {
  readonly decision: 'permit' | 'deny';
  readonly policy: MissionPolicy;
}

/** The facts of a mission that authorization looks at. */
export interface MissionOwnership {
  readonly agent: string;
  readonly tenant: string;
}

/**
 * Spec 5.3–5.4, DESIGN 3.2: the caller's role towards the mission, or `undefined` when it has none.
 * An agent holds a role only as the Owning Agent (a sub-agent or an agent of the same domain does
 * not, spec 5.4); a person only for a mission of its tenant whose agent it owns; an administrator
 * only within its tenant.
 */
export function managementRole(mission: MissionOwnership, caller: ManagementCaller): ManagementRole | undefined {
  assertManagementCaller(caller);
  switch (caller.role) {
    case 'agent':
      return caller.id === mission.agent ? 'agent' : undefined;
    case 'person':
      return caller.tenant === mission.tenant && caller.ownedAgents.includes(mission.agent) ? 'person' : undefined;
    case 'admin':
      return caller.tenant === mission.tenant ? 'admin' : undefined;
  }
}

export function assertManagementCaller(caller: unknown): asserts caller is ManagementCaller {
  const value = caller as Record<string, unknown> | null;
  const ok =
    typeof value === 'object' &&
    value !== null &&
    (MANAGEMENT_ROLES as readonly unknown[]).includes(value['role']) &&
    isBoundedText(value['id'], 2048) &&
    (value['role'] === 'agent' || isBoundedText(value['tenant'], 256)) &&
    (value['role'] !== 'person' || (Array.isArray(value['ownedAgents']) && value['ownedAgents'].every((agent) => typeof agent === 'string')));
  if (!ok) throw new InvalidCommandError('caller must be an agent {id}, a person {id, tenant, ownedAgents} or an admin {id, tenant}');
}

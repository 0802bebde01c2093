import { authorityHash } from '../authority-set/authority-hash.js';
import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { MissionIntent } from '../mission-intent/mission-intent.js';
import type { CreateMission } from '../mission/mission.commands.js';
import type { MissionCreated } from '../mission/mission.events.js';
import { missionIdFromBytes } from '../mission/mission-id.js';

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
    type: 'create',
    missionId: MISSION_ID,
    issuer: ISSUER,
    clientId: 'agent-a',
    authoritySet: AUTHORITY_SET,
    authorityHash: AUTHORITY_HASH,
    intent: INTENT,
    expiresAt: EXPIRES_AT,
    approvedBy: APPROVER,
    now: T0,
    ...overrides,
  };
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

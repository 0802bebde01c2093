/** Test data shared by the specs (not part of the build). */
export const APPROVER = 'https://ps.example';
export const AGENT = 'aauth:agent-a@agents.example';
export const OTHER_AGENT = 'aauth:agent-b@agents.example';
export const AGENT_JKT = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
export const TENANT = 'tenant-1';

export const T0 = new Date('2026-11-22T09:00:00.000Z');
export const T1 = new Date('2026-11-22T10:00:00.000Z');
export const T2 = new Date('2026-11-22T11:00:00.000Z');
export const EXPIRES_AT = new Date('2026-11-22T17:00:00.000Z');
export const AFTER_EXPIRY = new Date('2026-11-22T17:00:00.001Z');
export const at = (iso: string): Date => new Date(iso);

/** A digest that stands for an approved mission's blob (any SHA-256 base64url value will do here). */
export const MISSION_S256 = 'ZXhhbXBsZS1taXNzaW9uLWJsb2ItZGlnZXN0LTAwMDA';
export const OTHER_S256 = 'b3RoZXItbWlzc2lvbi1ibG9iLWRpZ2VzdC0wMDAwMDA';
/** 16 random bytes as base64url (spec 4.2: at least 128 bits). */
export const REQUEST_ID = 'Jq3vX0b9TzK1mW7cRf2YhA';
export const OTHER_REQUEST_ID = 'pL8sN4dQe6GkV1xZu0TbwQ';

export const OWNING_AGENT = { role: 'agent', id: AGENT } as const;
export const PERSON = { role: 'person', id: 'alice', tenant: TENANT, ownedAgents: [AGENT] } as const;
export const ADMIN = { role: 'admin', id: 'ops-1', tenant: TENANT } as const;

/** A copy of `value` without the member `name`. */
export function without<T extends object, K extends keyof T>(value: T, name: K): Omit<T, K> {
  return Object.fromEntries(Object.entries(value).filter(([member]) => member !== name)) as Omit<T, K>;
}

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

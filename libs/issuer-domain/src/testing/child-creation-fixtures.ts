import { authorityHash } from '../authority-set/authority-hash.js';
import type { AuthorityEntry, AuthoritySet } from '../authority-set/authority-set.js';
import { parseAuthorizationDetails } from '../authority-set/parse-authorization-details.js';
import { missionIdFromBytes } from '../mission/mission-id.js';
import type { Mission } from '../mission/mission.state.js';
import { at, ISSUER, missionRecord, OTHER_MISSION_ID } from './fixtures.js';
import type { ChildActor, RegisteredActor } from '../children/child-actor.js';
import { ChildCreationDeniedError } from '../children/child-creation-denied.error.js';
import type { ChildDenialReason } from '../children/child-denial-reasons.js';

/**
 * The parent, its authority set and the child actors of the Child Mission creation checks' specs
 * (children/child-creation-checks.*.spec.ts), and `denied`, which expects one refusal of spec 7's table.
 */
export const NOW = at('2026-11-22T10:00:00.000Z');
export const ROOT_ID = missionIdFromBytes(new Uint8Array(16).fill(3));
export const childId = (n: number): string => missionIdFromBytes(new Uint8Array(16).fill(20 + n));

export const TYPE = 'mission_resource_access';
export const INVOICES = 'https://erp.example.com/invoices';
export const PAYMENTS = 'https://erp.example.com/payments';
export const REPORTS = 'https://erp.example.com/reports';
export const VENDORS = 'https://erp.example.com/vendors';
export const LEDGER = 'https://erp.example.com/ledger';
export const ARCHIVE = 'https://erp.example.com/archive';
export const CONTRACTS = 'https://erp.example.com/contracts';

// RFC 6749 §5.2: what an error_description may contain (refusal messages are sent as one).
export const ERROR_DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/;

export const entry = (resource: string, actions: string[], extra: Partial<AuthorityEntry> = {}): AuthorityEntry => ({ type: TYPE, resource, actions, ...extra });
export const set = (...entries: AuthorityEntry[]): AuthoritySet => parseAuthorizationDetails(entries);

/**
 * 0: invoices, tenant-bound, max_children 2, ai_agent actors only;
 * 1: payments, max_amount, delegation.max_depth 1, max_children 1, policy short-lived;
 * 2: reports, children without controls;
 * 3: vendors, not delegable;
 * 4: ledger, two child generations, max_children 5.
 */
export const PARENT_SET = set(
  entry(INVOICES, ['invoices.list', 'invoices.read'], {
    constraints: { tenant: 'acme' },
    delegation: { children: { max_children: 2, allowed_child_actors: [{ sub_profile: 'ai_agent' }] } },
  }),
  entry(PAYMENTS, ['payments.read'], {
    constraints: { max_amount: { amount: '100.00', currency: 'EUR' } },
    delegation: { max_depth: 1, children: { max_children: 1, child_creation_policy: 'short-lived' } },
  }),
  entry(REPORTS, ['reports.read'], { delegation: { children: {} } }),
  entry(VENDORS, ['vendors.read']),
  entry(LEDGER, ['ledger.read'], { delegation: { children: { max_child_depth: 2, max_children: 5 } } }),
);

export const parentMission = (overrides: Partial<Mission> = {}): Mission =>
  missionRecord({ missionId: OTHER_MISSION_ID, authoritySet: PARENT_SET, authorityHash: authorityHash(ISSUER, PARENT_SET), ...overrides });

export const AI_AGENT: RegisteredActor = { sub: 'child-agent-1', iss: ISSUER, sub_profile: 'ai_agent client_instance' };
export const TOOL: RegisteredActor = { sub: 'child-tool-1', iss: ISSUER, sub_profile: 'tool' };
/** 0: invoices (all three actions) for human actors; 1: invoices.read for ai_agent actors. */
export const SPLIT_SET = set(
  entry(INVOICES, ['invoices.list', 'invoices.read', 'invoices.write'], { delegation: { children: { allowed_child_actors: [{ sub_profile: 'human' }] } } }),
  entry(INVOICES, ['invoices.read'], { delegation: { children: { allowed_child_actors: [{ sub_profile: 'ai_agent' }] } } }),
);
export const HUMAN: RegisteredActor = { sub: 'child-person-1', iss: ISSUER, sub_profile: 'human' };
export const actorOf = (registered: RegisteredActor, overrides: Partial<ChildActor> = {}): ChildActor => ({ sub: registered.sub, ...overrides });

/** Runs `check`, expects a ChildCreationDeniedError with the spec 7 reason and OAuth error, and returns it. */
export function denied(check: () => unknown, reason: ChildDenialReason, error: 'invalid_grant' | 'invalid_request' | 'access_denied'): ChildCreationDeniedError {
  let thrown: unknown;
  try {
    check();
  } catch (caught) {
    thrown = caught;
  }
  expect(thrown).toBeInstanceOf(ChildCreationDeniedError);
  const refusal = thrown as ChildCreationDeniedError;
  expect({ missionDenialReason: refusal.missionDenialReason, error: refusal.error }).toEqual({ missionDenialReason: reason, error });
  expect(refusal.message).toMatch(ERROR_DESCRIPTION);
  return refusal;
}

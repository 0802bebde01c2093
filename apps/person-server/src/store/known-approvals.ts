import { BoundedCache } from '@mission/http-signatures';
import { managementRole, type ManagementCaller } from '@mission/ps-domain';
import type { ApprovalFacts } from './mission-gate.js';

/** Missions whose approval is kept (a few hundred bytes each). */
const DEFAULT_CAPACITY = 10_000;

/** What a mission's first event says and never stops saying: its owner, tenant and expiry. */
export type ApprovalRecord = Omit<ApprovalFacts, 'role'>;

/**
 * Issue 15: the approvals (a mission stream's first event, `MissionApproved`) of missions recently managed by an
 * authorized caller, so that the mission gate need not read that event again for every `status`. Sound without
 * invalidation: the first event of `psmission-…` never changes (the stream is never tombstoned; bodies live in
 * their own streams).
 *
 * Spec 5.9 (anti-oracle, timing): an entry answers ONLY a caller it authorizes. For anyone else — another agent,
 * another tenant's person or administrator — `authorize` says nothing and the gate does the same one-event read
 * that an absent mission costs, so whether an entry exists (whether somebody used the mission lately) never changes
 * what an unauthorized caller observes. Entries are added only after an authorized read. Bounded: least recently
 * used missions are forgotten first.
 */
export class KnownApprovals {
  private readonly approvals: BoundedCache<ApprovalRecord>;

  constructor(capacity = DEFAULT_CAPACITY) {
    this.approvals = new BoundedCache(capacity);
  }

  /** The approval facts for a caller the remembered approval authorizes; otherwise undefined (read the store). */
  authorize(s256: string, caller: ManagementCaller): ApprovalFacts | undefined {
    const known = this.approvals.get(s256);
    if (known === undefined) return undefined;
    const role = managementRole(known, caller);
    return role === undefined ? undefined : { role, ...known };
  }

  /** Records the approval an authorized caller's read of the stream's first event gave. */
  remember(s256: string, facts: ApprovalFacts): void {
    // The role is the caller's, not the mission's: only what the event says is kept.
    this.approvals.set(s256, { agent: facts.agent, tenant: facts.tenant, ...(facts.expiresAt !== undefined ? { expiresAt: facts.expiresAt } : {}) });
  }

  get size(): number {
    return this.approvals.size;
  }
}

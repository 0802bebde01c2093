import type { EventStore } from '@mission/event-store';
import { managementRole, MissionNotFoundError, missionStreamName, type ManagementCaller, type ManagementRole } from '@mission/ps-domain';
import { SECURITY_AUDIT_STREAM } from '../abuse/security-audit.js';
import type { KnownApprovals } from './known-approvals.js';

/**
 * Spec 5.9 (anti-oracle, timing): before any work that depends on the size of a mission's history,
 * decide "absent or not authorized" from the stream's **first event only** (MissionApproved names the
 * owning agent and the tenant). An absent mission and a mission the caller may not know then cost the
 * same single bounded read, whatever the mission's activity — otherwise replaying a long log for an
 * unauthorized caller would reveal that the mission exists and how busy it is. The decider checks the
 * same rule again on the full state; this gate only decides earlier, never differently.
 */
export async function authorizeFromApproval(store: EventStore, s256: string, caller: ManagementCaller, known?: KnownApprovals): Promise<ApprovalFacts> {
  // Only a caller the remembered approval authorizes skips the read (known-approvals.ts); anyone else reads as before.
  const remembered = known?.authorize(s256, caller);
  if (remembered !== undefined) return remembered;
  let approval: { readonly type: string; readonly data: Record<string, unknown> } | undefined;
  for await (const event of store.readStream(missionStreamName(s256), { maxCount: 1 })) approval = event;
  // Spec 5.9 (timing): an absent mission reads no event, an existing one reads and decodes its approval (about
  // 13 µs more on the embedded store, measured). The absent path reads the first event of another small stream
  // instead — the security audit's, which a probe creates — so both cost one such read.
  if (approval === undefined) for await (const decoy of store.readStream(SECURITY_AUDIT_STREAM, { maxCount: 1 })) void decoy;
  const agent = approval?.data['agent'];
  const tenant = approval?.data['tenant'];
  if (approval?.type !== 'MissionApproved' || typeof agent !== 'string' || typeof tenant !== 'string') throw new MissionNotFoundError('absent');
  const role = managementRole({ agent, tenant }, caller);
  if (role === undefined) throw new MissionNotFoundError('not_authorized');
  const expiresAt = approval.data['expires_at'];
  const facts = { role, agent, tenant, ...(typeof expiresAt === 'string' ? { expiresAt: new Date(expiresAt) } : {}) };
  known?.remember(s256, facts);
  return facts;
}

/** What the approval (the first event) says beyond the authorization, for an authorized caller only. */
export interface ApprovalFacts {
  /** The caller's role towards the mission (spec 5.3): role rules run on it before anything else is read (spec 4.2 rule 1). */
  readonly role: ManagementRole;
  /** The Owning Agent and the mission's tenant (immutable): whose agents the caller may know in the tree (spec 4.3 rule 3). */
  readonly agent: string;
  readonly tenant: string;
  /** The blob's immutable `expires_at`: whether a decision at some instant will record the expiry first. */
  readonly expiresAt?: Date;
}

/** Spec 3: whether a decision at `now` records the due expiry first (so its token-impact summary is needed, spec 2.8). */
export function expiryDue(facts: Pick<ApprovalFacts, 'expiresAt'>, now: Date): boolean {
  return facts.expiresAt !== undefined && facts.expiresAt.getTime() <= now.getTime();
}

import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE } from '@mission/platform';
import { MissionNotFoundError, type ManagementCaller } from '@mission/ps-domain';
import { SecurityAudit } from '../../abuse/security-audit.js';
import type { RequestFacts } from '../../http/request-facts.js';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { KnownApprovals } from '../../store/known-approvals.js';
import { authorizeFromApproval, type ApprovalFacts } from '../../store/mission-gate.js';

/** Spec 5.3: the role-bearing view of an authenticated caller that the ps-domain rules read. */
export function managementCaller(caller: AuthenticatedCaller): ManagementCaller {
  if (caller.kind === 'agent') return { role: 'agent', id: caller.agent };
  if (caller.role === 'person') return { role: 'person', id: caller.id, tenant: caller.tenant, ownedAgents: caller.agents };
  return { role: 'admin', id: caller.id, tenant: caller.tenant };
}

/**
 * The authorization every management operation starts with (spec 5.9): the mission gate decides "absent or
 * not authorized" from the first event only, and such a probe goes to the security audit with a keyed digest.
 */
@Injectable()
export class MissionAuthorization {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly audit: SecurityAudit,
    private readonly approvals: KnownApprovals,
  ) {}

  /** Spec 5.9: absent and not authorized are one answer; the probe goes to the security audit with a keyed digest. */
  async authorized<T>(caller: AuthenticatedCaller, s256: string, facts: RequestFacts, work: (approval: ApprovalFacts) => Promise<T>): Promise<T> {
    try {
      // Spec 5.9: absent and not authorized cost the same one-event read, before anything history-sized.
      const approval = await authorizeFromApproval(this.store, s256, managementCaller(caller), this.approvals);
      return await work(approval);
    } catch (error) {
      if (error instanceof MissionNotFoundError) this.audit.record({ kind: 'mission_probe', reason: error.auditDetail, caller, missionS256: s256, ...facts });
      throw error;
    }
  }
}

import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE } from '@mission/platform';
import { effectiveState, isMissionS256, missionExists, MissionNotFoundError } from '@mission/ps-domain';
import { ProbeLimiter } from '../../abuse/probe-limiter.js';
import { SecurityAudit } from '../../abuse/security-audit.js';
import { callerKey, type AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import type { RequestFacts } from '../../http/request-facts.js';
import { MissionLog } from '../../store/mission-log.js';
import { authorizeFromApproval } from '../../store/mission-gate.js';
import { managementCaller } from '../shared/mission-authorization.js';

/**
 * Spec 4.2 rule 1, 5.9 (defect 5 of issue 12): whether a `replacement_s256` identifies an approved, still
 * active mission of this PS that the caller may reference. The lookup is no existence oracle:
 * - it runs only after the caller's role rules passed (the terminate flow calls it last);
 * - "absent" and "not the caller's" are decided by the same one-event read of the mission gate
 *   (`authorizeFromApproval`), so neither folds a history: a long foreign mission costs what an absent one costs;
 * - each such failure counts against the caller's failed-lookup allowance (`ProbeLimiter`, shared with every
 *   other lookup of a Mission Reference) and goes to the security audit as `replacement_probe` with the
 *   keyed digest of the reference, never the reference.
 * Only for a mission the caller may know is its state read (whether it is still active).
 */
@Injectable()
export class ReplacementLookup {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly missionLog: MissionLog,
    private readonly audit: SecurityAudit,
    private readonly probes: ProbeLimiter,
  ) {}

  async resolves(caller: AuthenticatedCaller, replacement: string | undefined, s256: string, facts: RequestFacts): Promise<boolean> {
    if (replacement === undefined) return false;
    if (!isMissionS256(replacement)) {
      this.failed(caller, 'malformed', undefined, facts);
      return false;
    }
    if (replacement === s256) return false;
    try {
      await authorizeFromApproval(this.store, replacement, managementCaller(caller));
    } catch (error) {
      if (!(error instanceof MissionNotFoundError)) throw error;
      this.failed(caller, error.auditDetail, replacement, facts);
      return false;
    }
    const state = await this.missionLog.state(replacement);
    return missionExists(state) && effectiveState(state, this.clock.now()) === 'active';
  }

  private failed(caller: AuthenticatedCaller, reason: string, replacement: string | undefined, facts: RequestFacts): void {
    this.audit.record({ kind: 'replacement_probe', reason, caller, ...(replacement !== undefined ? { missionS256: replacement } : {}), ...facts });
    this.probes.recordFailure(callerKey(caller));
  }
}

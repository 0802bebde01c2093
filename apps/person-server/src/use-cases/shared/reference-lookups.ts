import { Injectable } from '@nestjs/common';
import { isMissionS256 } from '@mission/ps-domain';
import { ProbeLimiter } from '../../abuse/probe-limiter.js';
import { SecurityAudit } from '../../abuse/security-audit.js';
import { toProblem } from '../../errors/problem-table.js';
import { InvalidMissionReferenceProblem, MissionNotFoundProblem } from '../../errors/problems.js';
import type { RequestFacts } from '../../http/request-facts.js';
import { callerKey, type AuthenticatedCaller } from '../../identity/authenticated-caller.js';

/**
 * Spec 5.9, 8: the failed-lookup allowance around every management operation on a Mission Reference (one
 * budget per caller, shared with POST /token through the one ProbeLimiter): a caller with too many failed
 * lookups is refused before any lookup; a malformed reference and a `mission_not_found` each count.
 */
@Injectable()
export class ReferenceLookups {
  constructor(
    private readonly audit: SecurityAudit,
    private readonly probes: ProbeLimiter,
  ) {}

  /** Spec 4: a malformed reference is `invalid_mission_reference` before any lookup; returns the well-formed one. */
  admit(caller: AuthenticatedCaller, operation: string, reference: unknown, facts: RequestFacts): string {
    const key = callerKey(caller);
    // Spec 5.9, 8: a caller with too many failed lookups is refused before any lookup.
    this.probes.check(key);
    if (!isMissionS256(reference)) {
      // Spec 5.9: security-logged without the raw value (it is not a reference; nothing to digest).
      this.audit.record({ kind: 'malformed_reference', reason: operation, caller, ...facts });
      this.probes.recordFailure(key);
      throw new InvalidMissionReferenceProblem();
    }
    return reference;
  }

  /** Runs the operation; a `mission_not_found` answer counts against the caller's allowance. */
  async counted<T>(caller: AuthenticatedCaller, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      const problem = toProblem(error);
      if (problem instanceof MissionNotFoundProblem) this.probes.recordFailure(callerKey(caller));
      throw problem;
    }
  }
}

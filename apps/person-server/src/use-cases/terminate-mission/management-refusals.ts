import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { LOGGER, traceLogFields, type Logger } from '@mission/platform';
import {
  IdempotencyConflictError,
  InvalidRequestError,
  InvalidTerminationReasonError,
  isPurpose,
  isRequestIdText,
  isTerminationReason,
  type RefusalCode,
  type TerminationRequest,
} from '@mission/ps-domain';
import { SecurityAudit } from '../../abuse/security-audit.js';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import type { RequestFacts } from '../../http/request-facts.js';
import { MissionLog } from '../../store/mission-log.js';
import { TokenLedger } from '../../store/token-ledger.js';
import { expiryDue, type ApprovalFacts } from '../../store/mission-gate.js';
import { managementCaller } from '../shared/mission-authorization.js';

/** The refusal code of a domain error the terminate flow logs (spec 7), or undefined for anything else. */
export function refusalCode(error: unknown): RefusalCode | undefined {
  if (error instanceof IdempotencyConflictError) return 'idempotency_conflict';
  if (error instanceof InvalidTerminationReasonError) return 'invalid_termination_reason';
  if (error instanceof InvalidRequestError) return 'invalid_request';
  return undefined;
}

/**
 * Spec 6, 5.5 (defect 6 of issue 12, ADR 0018): a terminate refused **after** the caller was authorized for
 * the mission — a reason its role may not record, an administrator without `purpose`, an unusable
 * replacement, a reused `request_id` — is a mission-log event (`ManagementRequestRefused`, decision
 * `deny`) and a security-audit event (`management_refused`, keyed digest of the reference). A caller not
 * authorized for the mission never reaches this: its request is a `mission_probe` in the security audit
 * only (spec 6: no false mission record).
 */
@Injectable()
export class ManagementRefusals {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly missionLog: MissionLog,
    private readonly ledger: TokenLedger,
    private readonly audit: SecurityAudit,
  ) {}

  async record(caller: AuthenticatedCaller, s256: string, approval: ApprovalFacts, error: RefusalCode, request: TerminationRequest, facts: RequestFacts): Promise<void> {
    this.audit.record({ kind: 'management_refused', reason: error, caller, missionS256: s256, ...facts });
    const now = this.clock.now();
    try {
      // Spec 2.8: a due expiry recorded first carries the token-impact summary.
      const trackedTokens = expiryDue(approval, now) ? await this.ledger.state(s256) : undefined;
      await this.missionLog.execute(
        s256,
        {
          type: 'RecordRefusal',
          caller: managementCaller(caller),
          operation: 'terminate',
          error,
          ...(isRequestIdText(request.requestId) ? { requestId: request.requestId } : {}),
          ...(isTerminationReason(request.reason) ? { requestedReason: request.reason } : {}),
          ...(isPurpose(request.purpose) ? { purpose: request.purpose } : {}),
          now,
          ...(trackedTokens !== undefined ? { trackedTokens } : {}),
        },
        { correlationId: randomUUID(), causationId: `terminate-refused:${facts.requestId ?? randomUUID()}`, actor: { id: approval.role === 'agent' ? approval.agent : callerId(caller), role: approval.role }, now, trace: facts.trace },
      );
    } catch (failure) {
      // The caller still gets its 4xx; the security audit above already holds the refusal.
      this.logger.error({ ...traceLogFields(facts.trace), err: failure, mission_s256: s256, error }, 'refused terminate could not be logged on the mission log');
    }
  }
}

function callerId(caller: AuthenticatedCaller): string {
  return caller.kind === 'agent' ? caller.agent : caller.id;
}

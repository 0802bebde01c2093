import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE } from '@mission/platform';
import { checkBlobDeletionRequest, isMissionS256, proposalBodyStreamName, MissionNotFoundError, type TerminationReason } from '@mission/ps-domain';
import { SecurityAudit } from '../../abuse/security-audit.js';
import { MissionLog } from '../../store/mission-log.js';
import { TokenLedger } from '../../store/token-ledger.js';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import { AccessDeniedProblem, InvalidMissionReferenceProblem } from '../../errors/problems.js';
import { authorizeFromApproval, expiryDue } from '../../store/mission-gate.js';
import type { RequestFacts } from '../../http/request-facts.js';
import { jsonShape } from '../../http/json-shape.js';
import { managementCaller } from '../shared/mission-authorization.js';
import { BlobDeletionBody } from './blob-deletion.body.js';
import { deleteBlobStream } from '../../lifecycle/blob-deletion.process-manager.js';

/** The answer to a blob deletion: the tombstone's terminal status and when the body was deleted. */
export interface BlobDeletionResult {
  readonly mission_s256: string;
  readonly mission_status: 'terminated';
  readonly termination_reason: TerminationReason;
  readonly terminated_at: string;
  readonly blob_deleted_at: string;
}

/** `POST /mission/blob-deletions` by `caller` with the request's JSON body. */
export class DeleteMissionBody extends Command<BlobDeletionResult> {
  constructor(
    readonly caller: AuthenticatedCaller,
    readonly body: unknown,
    readonly facts: RequestFacts,
  ) {
    super();
  }
}

/**
 * Spec 3 rule 5, spec 8 "terminal state retention … tombstone kept after body deletion": an
 * administrator of the mission's tenant deletes the body (`psblob-<s256>`) of a terminated mission.
 * Order: MissionBlobDeleted on `psmission-<s256>` under the expected revision (the commit point, the
 * audit record and the tombstone; refused for an active mission), then the hard delete of
 * `psblob-<s256>` (repeated by the `ps_blob_deletion` process manager after a crash). A repeat
 * returns the same answer and records nothing.
 */
@CommandHandler(DeleteMissionBody)
export class DeleteMissionBodyHandler implements ICommandHandler<DeleteMissionBody> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly audit: SecurityAudit,
    private readonly ledger: TokenLedger,
    private readonly missionLog: MissionLog,
  ) {}

  async execute({ caller, body, facts }: DeleteMissionBody): Promise<BlobDeletionResult> {
    // Spec 5.4–5.5: an administrative operation; anyone else is refused before any lookup.
    if (caller.kind !== 'principal' || caller.role !== 'admin') {
      this.audit.record({ kind: 'access_denied', reason: 'blob_deletion_requires_admin', caller, ...facts });
      throw new AccessDeniedProblem('only an administrator may delete a mission body');
    }
    const request = jsonShape(BlobDeletionBody, body, 'the request must be a JSON object');
    const s256 = request.mission_s256;
    if (!isMissionS256(s256)) {
      this.audit.record({ kind: 'malformed_reference', reason: 'blob_deletion', caller, ...facts });
      throw new InvalidMissionReferenceProblem();
    }
    const requestId = request.request_id;
    const purpose = request.purpose;
    checkBlobDeletionRequest({ requestId, purpose });
    const now = this.clock.now();
    let result;
    try {
      // Spec 5.9: absent and not authorized cost the same one-event read; only then is anything else read.
      const approval = await authorizeFromApproval(this.store, s256, managementCaller(caller));
      // Spec 2.8: a due expiry recorded first carries the token-impact summary.
      const trackedTokens = expiryDue(approval, now) ? await this.ledger.state(s256) : undefined;
      result = await this.missionLog.execute(
        s256,
        { type: 'DeleteMissionBlob', caller: managementCaller(caller), requestId: requestId as string, purpose: purpose as string, now, ...(trackedTokens !== undefined ? { trackedTokens } : {}) },
        { correlationId: randomUUID(), causationId: `blob-deletion:${requestId as string}`, actor: { id: caller.id, role: 'admin' }, now, trace: facts.trace },
      );
    } catch (error) {
      // Spec 5.9: absent and not authorized are one answer; the probe is audited with a keyed digest.
      if (error instanceof MissionNotFoundError) this.audit.record({ kind: 'mission_probe', reason: error.auditDetail, caller, missionS256: s256, ...facts });
      throw error;
    }
    const state = result.state;
    if (state.status !== 'terminated' || state.blobDeleted === undefined) throw new Error('the blob deletion was not recorded');
    await deleteBlobStream(this.store, s256, state.pendingId !== undefined ? proposalBodyStreamName(state.pendingId) : undefined);
    return {
      mission_s256: s256,
      mission_status: 'terminated',
      termination_reason: state.termination.reason,
      terminated_at: state.termination.terminatedAt.toISOString(),
      blob_deleted_at: state.blobDeleted.at.toISOString(),
    };
  }
}

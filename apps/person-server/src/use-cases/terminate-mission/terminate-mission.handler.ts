import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { aggregateStream, handleCommand, type CommandContext, type RequestTrace } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, SERVICE_CONFIG } from '@mission/platform';
import {
  checkTerminationRequestSyntax,
  checkTerminationRole,
  checkTerminationRules,
  idempotencyDecider,
  idempotencyStreamName,
  idempotentReplay,
  InvalidCommandError,
  requestContentDigest,
  terminateRequestContent,
  terminationResult,
  visibleTrackedTokens,
  type IdempotencyCaller,
  type JsonObject,
  type Mission,
  type TerminateRequestBody,
  type TerminationRequest,
} from '@mission/ps-domain';
import { callerKey, type AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import type { PersonServerConfig } from '../../config/person-server-config.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import type { RequestFacts } from '../../http/request-facts.js';
import { RevocationWork } from '../../revocation/revocation-work.js';
import { MissionLog } from '../../store/mission-log.js';
import { TokenLedger } from '../../store/token-ledger.js';
import { ManagementRefusals, refusalCode } from './management-refusals.js';
import type { ApprovalFacts } from '../../store/mission-gate.js';
import { AgentTenancy } from '../shared/agent-tenancy.js';
import { commandContext } from '../shared/command-context.js';
import { managementCaller, MissionAuthorization } from '../shared/mission-authorization.js';
import { ReplacementLookup } from './replacement-lookup.js';
import { TerminationGates } from './termination-gates.js';

/** Spec 4.2 rule 2 / 5.6: `request_id` is bound to the authenticated caller (its {@link callerKey}). */
function idempotencyCaller(caller: AuthenticatedCaller): IdempotencyCaller {
  return { id: callerKey(caller), role: caller.kind === 'agent' ? 'agent' : caller.role };
}

interface IdempotencyHandle {
  readonly stream: string;
  readonly caller: IdempotencyCaller;
  readonly requestId: string;
  readonly contentDigest: string;
  /** The request (ADR 0050): its commands' events carry it. */
  readonly trace: RequestTrace | undefined;
}

/** Spec 4.2 `terminate` of the mission `s256` (a well-formed Mission Reference) with the request's JSON body. */
export class TerminateMission extends Command<JsonObject> {
  constructor(
    readonly caller: AuthenticatedCaller,
    readonly s256: string,
    readonly body: Record<string, unknown>,
    readonly facts: RequestFacts,
  ) {
    super();
  }
}

/**
 * `terminate` (spec 4.2 steps 1–6, ADR 0017). Order:
 * 1. syntax that needs no mission; authorization by the mission gate (absent ≡ not authorized, spec 5.9);
 * 2. an identical repeat returns the recorded answer; a reused `request_id` with other content is 409;
 * 3. role rules, then (for `superseded`) the replacement lookup — refusals of this authorized caller are
 *    logged (ManagementRefusals, spec 6);
 * 4. **the claim** of (caller, `request_id`) for this content on `psidem-<key>` (expected revision): from
 *    here on no other content can commit under the same key, on any replica, in any interleaving;
 * 5. the mission decider commits MissionTerminated (or LateTerminationRequested) under the stream's
 *    expected revision; a request already logged on the mission decides nothing (no second lifecycle event);
 * 6. revocation starts; the answer (with the `token_residual` the caller may know about) is recorded on the
 *    claim and the **recorded** answer is returned — so every identical request, the first included, gets the
 *    same bytes even when two of them raced to record.
 * A crash after the claim leaves a claim without a result: an identical repeat completes it (steps 5–6 are
 * idempotent); other content stays refused.
 */
@CommandHandler(TerminateMission)
export class TerminateMissionHandler implements ICommandHandler<TerminateMission> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SERVICE_CONFIG) private readonly config: PersonServerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly authorization: MissionAuthorization,
    private readonly missionLog: MissionLog,
    private readonly ledger: TokenLedger,
    private readonly revocation: RevocationWork,
    private readonly replacements: ReplacementLookup,
    private readonly refusals: ManagementRefusals,
    private readonly tenancy: AgentTenancy,
    private readonly gates: TerminationGates,
  ) {}

  async execute({ caller, s256, body, facts }: TerminateMission): Promise<JsonObject> {
    const request: TerminationRequest = {
      reason: body['reason'] as string,
      requestId: body['request_id'] as string,
      ...(body['purpose'] !== undefined ? { purpose: body['purpose'] as string } : {}),
      ...(body['replacement_s256'] !== undefined ? { replacementS256: body['replacement_s256'] as string } : {}),
    };
    // Checks needing no mission run before any lookup (and before idempotency, whose key needs request_id).
    checkTerminationRequestSyntax(request);
    const idem = this.idempotencyHandle(caller, request.requestId, body, facts);
    return this.authorization.authorized(caller, s256, facts, async (approval) => {
      const recorded = await this.refusedIfThrows(caller, s256, approval, request, facts, () => this.admit(caller, s256, approval, request, idem, facts));
      if (recorded !== undefined) return recorded;
      await this.gates.pass('claimed');
      const mission = await this.commit(caller, s256, request, idem);
      await this.gates.pass('committed');
      return this.answer(caller, s256, mission, idem);
    });
  }

  /** Steps 2–4: the recorded answer of an identical repeat, or undefined once this request holds the claim. */
  private async admit(caller: AuthenticatedCaller, s256: string, approval: ApprovalFacts, request: TerminationRequest, idem: IdempotencyHandle, facts: RequestFacts): Promise<JsonObject | undefined> {
    const { state } = await aggregateStream(this.store, idem.stream, idempotencyDecider);
    const replay = idempotentReplay(state, idem.contentDigest);
    if (replay !== undefined) return replay;
    // Claimed by this very content (in flight, or interrupted by a crash): its checks passed before the claim was
    // written, so complete it — steps 5 and 6 are idempotent.
    if (state.status === 'claimed') return undefined;
    // Spec 4.2 rule 1: the role decides first; only a caller who may supersede makes the PS look the replacement up.
    const reason = checkTerminationRole(approval.role, request);
    const replacementResolves = reason === 'superseded' ? await this.replacements.resolves(caller, request.replacementS256, s256, facts) : false;
    checkTerminationRules(approval.role, { ...request, replacementResolves }, s256);
    const now = this.clock.now();
    await handleCommand(this.store, idem.stream, idempotencyDecider, { type: 'ClaimRequest', caller: idem.caller, requestId: idem.requestId, contentDigest: idem.contentDigest, now }, this.context(caller, now, idem));
    return undefined;
  }

  /** Step 5: authorize again on the full state, apply expiry, commit (first committed transition wins). */
  private async commit(caller: AuthenticatedCaller, s256: string, request: TerminationRequest, idem: IdempotencyHandle): Promise<Mission> {
    const now = this.clock.now();
    // Spec 2.8: MissionTerminated carries the token-impact summary of the tokens tracked so far.
    const trackedTokens = await this.ledger.state(s256);
    const who = managementCaller(caller);
    const replacementResolves = request.replacementS256 !== undefined; // validated before the claim (step 3)
    const { state } = await this.missionLog.execute(s256, { type: 'TerminateMission', caller: who, now, ...request, replacementResolves, trackedTokens }, this.context(caller, now, idem));
    // Step (4): every decision path (status, terminate, POST /token) reads psmission-<s256>, so the commit is already visible.
    return state as Mission;
  }

  /** Step 6: revocation, the answer for this caller, recorded once; the recorded answer is returned. */
  private async answer(caller: AuthenticatedCaller, s256: string, mission: Mission, idem: IdempotencyHandle): Promise<JsonObject> {
    const now = this.clock.now();
    const context = this.context(caller, now, idem);
    // Step (5): start revocation now; it never delays or rolls back the commit above.
    await this.revocation.start(s256, context);
    // Spec 2.5, 4.3 rule 3: only the tokens of tree nodes this caller may see are counted (ADR 0019).
    const known = this.tenancy.knownTo(mission.tenant);
    const tokenResidual = await this.revocation.revocations.residualAfterWaiting(s256, this.config.untracked_access_modes, (all) => visibleTrackedTokens(mission.agent, all, known));
    const answer: JsonObject = { ...terminationResult(mission, now), token_residual: tokenResidual };
    await this.gates.pass('answering');
    const stored = await handleCommand(
      this.store,
      idem.stream,
      idempotencyDecider,
      { type: 'RecordRequestResult', caller: idem.caller, requestId: idem.requestId, contentDigest: idem.contentDigest, result: answer, now: this.clock.now() },
      context,
    );
    if (stored.state.status !== 'recorded') throw new InvalidCommandError('the idempotency record was not written');
    return stored.state.result;
  }

  /** Spec 6 (ADR 0018): a refusal of this authorized caller is logged before it is answered. */
  private async refusedIfThrows<T>(caller: AuthenticatedCaller, s256: string, approval: ApprovalFacts, request: TerminationRequest, facts: RequestFacts, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const code = refusalCode(error);
      if (code !== undefined) await this.refusals.record(caller, s256, approval, code, request, facts);
      throw error;
    }
  }

  private idempotencyHandle(caller: AuthenticatedCaller, requestId: string, body: Record<string, unknown>, facts: RequestFacts): IdempotencyHandle {
    const idemCaller = idempotencyCaller(caller);
    return {
      stream: idempotencyStreamName(idemCaller, requestId),
      caller: idemCaller,
      requestId,
      contentDigest: requestContentDigest(terminateRequestContent(body as unknown as TerminateRequestBody)),
      trace: facts.trace,
    };
  }

  private context(caller: AuthenticatedCaller, now: Date, idem: IdempotencyHandle): CommandContext {
    return commandContext(caller, now, `terminate:${idem.requestId}`, idem.trace);
  }
}

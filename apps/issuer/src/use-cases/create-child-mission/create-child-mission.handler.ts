import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { WrongExpectedRevisionError, type EventStore } from '@mission/event-store';
import { aggregateStream, decideAndAppend, backoffDelayMs, handleCommand, KeyedMutex, type AggregateState, type CommandContext } from '@mission/es-kit';
import {
  authorityHash, childExpiry, grantDecider, grantIdFromBytes, grantStreamName, grantTokenFromBytes, grantTokenHash,
  delegationIdFromBytes, missionDecider, missionExists, missionIdFromBytes, missionStreamName, requireChildActorAllowed, requireCreationPolicy,
  requireDelegableParent, requireDistinctChildActor, requireIntentWithinParent, requireFanOut, requireLineageActive, requireParentMatch, requireStrictSubset,
  type Actor, type ChildActor, type ChildCreationPolicyRule, type MissionState, type ParentLink, type RegisteredActor,
} from '@mission/issuer-domain';
import { assertDpopBinding, InvalidGrantError, TemporarilyUnavailableError, type Clock } from '@mission/issuer-oauth';
import { EVENT_STORE, LOGGER, SERVICE_CONFIG, secureRandomBytes, traceLogFields } from '@mission/platform';
import { ClientRegistry } from '../../clients/client-registry.js';
import type { IssuerConfig } from '../../config/issuer-config.js';
import { MissionLineage } from '../../lineage/mission-lineage.js';
import { CLOCK } from '../../oauth/clock.js';
import { IssuerOAuth } from '../../oauth/issuer-oauth.service.js';
import { asProtocolErrors, childDenialOf, childDenialProtocolError } from '../../errors/domain-refusals.js';
import { cascadeIfLineageEnded, parentNotActiveIfCascaded } from './cascade-if-lineage-ended.js';
import { CreateChildMission, type ChildCreated, type ChildCreationRequest } from './child-creation-request.js';
import { childRequestUri, parentGrantIdOf } from './parent-grant.js';
import { createdEvidence, deniedEvidence, type CreatedOutcome, type CreationCheck, type EvidenceIds } from '../../evidence/child-evidence.records.js';
import { appendDeniedEvidence } from '../../evidence/child-evidence.writer.js';
import { commandContext } from '../shared/command-context.js';

export { CreateChildMission, type ChildCreated, type ChildCreationRequest } from './child-creation-request.js';

const CHILD_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:mission-child-creation';
/**
 * Within one replica creations under a parent are serialized, so a conflict on the parent's stream means another
 * replica or a lifecycle transition committed. Each retry re-runs steps 3–10 after an equal-jitter back-off; the
 * budget is generous, because giving up answers an honest request with 503.
 */
const MAX_COMMIT_ATTEMPTS = 40;
const BACKOFF = { initialDelayMs: 4, maxDelayMs: 250 } as const;

/** Test hook: runs between the checks (steps 3–9) and the commit (step 10), to stage races. */
export type BeforeCommitHook = (parentMissionId: string) => Promise<void>;
/** Test hook: runs between two writes of step 10, to stage creation/cascade interleavings (decision 0021). */
export type CreationStepHook = (parentMissionId: string, childMissionId: string) => Promise<void>;

/** The parent resolved from `parent_token` (step 2), with the keys the child may never use (spec 2.5 rule 8). */
interface ResolvedParent {
  readonly missionId: string;
  /** The parent grant's key and every ancestor grant's key. */
  readonly lineageJkts: readonly string[];
}

/**
 * Spec 4.1 Child Mission creation, steps 2–11 (step 1, client authentication, is the controller's).
 * Steps 3–9 are the pure checks of `@mission/issuer-domain` over the parent state read in step 4;
 * step 10 appends `ChildMissionAttached` to the parent's stream at exactly that revision (DESIGN 2.4
 * "Serialization"), then creates the child and its creation grant; step 11's `created` evidence is in
 * the attachment event. Every refusal after the parent is resolved leaves a `denied` evidence record.
 *
 * Spec 2.4 rule 3 and liveness: creations under one parent run one at a time in this replica (one writer per
 * parent stream), so a burst of honest creations queues instead of exhausting its retries on each other.
 */
@CommandHandler(CreateChildMission)
export class CreateChildMissionHandler implements ICommandHandler<CreateChildMission> {
  private readonly policies: ReadonlyMap<string, ChildCreationPolicyRule>;
  private readonly parentWriters = new KeyedMutex();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: IssuerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly oauth: IssuerOAuth,
    private readonly clients: ClientRegistry,
    private readonly lineage: MissionLineage,
  ) {
    this.policies = new Map(config.child_missions.policies.map((policy) => [policy.name, policy]));
  }

  /** Optional hook for the step-10 race tests; never set in production. */
  beforeCommit: BeforeCommitHook | undefined;
  /** Optional hooks for the creation/cascade interleaving tests: after the attachment, after `MissionCreated`. Never set in production. */
  afterAttach: CreationStepHook | undefined;
  afterChildCreated: CreationStepHook | undefined;

  async execute({ request }: CreateChildMission): Promise<ChildCreated> {
    const parent = await this.resolveParent(request);
    return this.parentWriters.run(parent.missionId, () => this.createUnder(parent, request));
  }

  private async createUnder(parent: ResolvedParent, request: ChildCreationRequest): Promise<ChildCreated> {
    const ids: EvidenceIds = { evidenceId: delegationIdFromBytes(secureRandomBytes(16)), childMissionId: missionIdFromBytes(secureRandomBytes(16)) };
    const grantId = grantIdFromBytes(secureRandomBytes(16));
    const grantToken = grantTokenFromBytes(grantId, secureRandomBytes(32));
    const actor: Actor = { id: request.client.client_id, role: 'client' };

    for (let attempt = 1; ; attempt++) {
      const now = this.clock.now();
      const read = await this.lineage.load(parent.missionId);
      const checksRun: CreationCheck[] = [];
      let outcome: CreatedOutcome;
      try {
        outcome = await this.check(request, read, now, checksRun);
      } catch (error) {
        throw await this.denied(error, request, read.state, ids, checksRun, now);
      }
      await this.beforeCommit?.(parent.missionId);
      const evidence = createdEvidence(this.oauth.issuer, request, outcome, ids, now);
      const grantExpiresAt = new Date(now.getTime() + this.config.child_missions.creation_grant_ttl_seconds * 1000);
      const context = commandContext(actor, `par:child:${ids.evidenceId}`, now, request.trace);
      try {
        // Step 10 (DESIGN 2.4): the commit point, at the parent revision steps 4 and 8 were decided on. The
        // decider re-checks over the parent's real state: active, fan-out, strict subset, expiry, resources.
        await decideAndAppend(this.store, missionStreamName(parent.missionId), missionDecider, read, {
          type: 'AttachChild', childMissionId: ids.childMissionId, childClientId: request.childActor.sub, parentEntryIndexes: outcome.justifiedBy, actor, now,
          child: { authoritySet: request.authoritySet, expiresAt: outcome.expiresAt, intentResources: request.intent.resources },
          grantId, grantExpiresAt, cascadeMode: request.cascadeMode, evidence,
        }, context, { hashChain: true });
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError && attempt < MAX_COMMIT_ATTEMPTS) {
          await sleep(backoffDelayMs(attempt, BACKOFF));
          continue;
        }
        if (error instanceof WrongExpectedRevisionError) throw new TemporarilyUnavailableError('the parent mission is busy; retry the request');
        throw await this.denied(error, request, read.state, ids, [...checksRun, 'commit'], now);
      }
      await this.afterAttach?.(parent.missionId, ids.childMissionId);
      await this.commitChild(request, outcome, parent, { ...ids, grantId, grantToken, grantExpiresAt, now, context });
      this.logger.info({ ...traceLogFields(request.trace), parent_mission_id: parent.missionId, mission_id: ids.childMissionId, client_id: request.client.client_id, child_client_id: request.childActor.sub, attempts: attempt }, 'child mission created');
      return { requestUri: childRequestUri(grantToken), expiresIn: this.config.child_missions.creation_grant_ttl_seconds, childMissionId: ids.childMissionId };
    }
  }

  /**
   * Spec 4.1 step 2, spec 5 rule 2, DESIGN 2.2/2.4: the parent is the mission of the grant `parent_token`
   * belongs to — its current refresh token, held by this client, presented with a proof of its bound key.
   * Failures here resolve no parent, so no evidence is filed under one (decision 0009); they are logged.
   */
  private async resolveParent(request: ChildCreationRequest): Promise<ResolvedParent> {
    try {
      const grantId = parentGrantIdOf(request.parentToken);
      const { state: grant } = await aggregateStream(this.store, grantStreamName(grantId), grantDecider);
      const current = grant.status === 'active' && grant.refreshTokenHash === grantTokenHash(request.parentToken);
      if (!current || grant.status !== 'active') throw new InvalidGrantError('parent_token is not a current refresh token of this issuer');
      if (grant.clientId !== request.client.client_id) throw new InvalidGrantError('parent_token was issued to another client');
      assertDpopBinding(request.proof, grant.jkt!, 'parent_token');
      return { missionId: grant.missionId, lineageJkts: [grant.jkt!, ...(grant.lineageJkts ?? [])] };
    } catch (error) {
      this.logger.warn({ ...traceLogFields(request.trace), client_id: request.client.client_id, reason: error instanceof Error ? error.message : 'unknown' }, 'child mission creation: parent_token did not resolve a parent');
      throw error;
    }
  }

  /** Spec 4.1 steps 3–9 in order, over the parent state read for this attempt; `ran` records each check as it starts. */
  private async check(request: ChildCreationRequest, read: AggregateState<MissionState>, now: Date, ran: CreationCheck[]): Promise<CreatedOutcome> {
    const parent = read.state;
    if (!missionExists(parent)) throw new InvalidGrantError('the parent grant has no mission');
    ran.push('parent_match');
    requireParentMatch(parent.missionId, request.claimedParent);
    ran.push('parent_active');
    const ancestors = await this.lineage.ancestors(parent);
    requireLineageActive([parent, ...ancestors], now);
    ran.push('delegation_permitted');
    requireDelegableParent(parent);
    ran.push('child_actor');
    requireDistinctChildActor([parent, ...ancestors], request.childActor);
    const admitting = requireChildActorAllowed(parent, request.authoritySet, request.childActor, this.registered(request.childActor), this.oauth.issuer);
    ran.push('strict_subset');
    const justifiedBy = requireStrictSubset(parent, request.authoritySet, admitting);
    requireIntentWithinParent(parent, request.intent);
    const expiresAt = childExpiry(new Date(request.intent.expires_at), parent.expiresAt);
    ran.push('fanout');
    const fanout = requireFanOut(parent, justifiedBy);
    ran.push('policy');
    const basis = requireCreationPolicy(parent, justifiedBy, this.policies, { now, childExpiresAt: expiresAt, childDepth: (parent.parent?.depth ?? 0) + 1 });
    return { parent, justifiedBy, expiresAt, fanout, basis };
  }

  /** DESIGN 2.2: the child actor as registered — never what the request claims about it. */
  private registered(actor: ChildActor): RegisteredActor | undefined {
    const client = this.clients.findClient(actor.sub);
    if (client === undefined || !this.clients.mayUseGrant(client, CHILD_GRANT_TYPE)) return undefined;
    return { sub: client.client_id, iss: this.oauth.issuer, sub_profile: client.sub_profile };
  }

  /** After the attachment: the child (spec 2.1, `parent` per 2.3) and its creation grant (DESIGN 2.4); spec 4.1 rule 1: decision 0021. */
  private async commitChild(request: ChildCreationRequest, checked: CreatedOutcome, resolved: ResolvedParent, ids: CommitIds): Promise<void> {
    const issuer = this.oauth.issuer;
    const parent: ParentLink = {
      id: checked.parent.missionId, issuer, authority_hash: checked.parent.authorityHash, depth: (checked.parent.parent?.depth ?? 0) + 1,
      delegation_id: ids.evidenceId, cascade_mode: request.cascadeMode, created_at: ids.now.toISOString(),
    };
    const approvedBy: Actor = { id: checked.basis, role: 'policy' };
    await asProtocolErrors(async () => {
      await parentNotActiveIfCascaded(this.logger.child(traceLogFields(request.trace)), checked.parent.missionId, async () => {
        await handleCommand(this.store, missionStreamName(ids.childMissionId), missionDecider, {
          type: 'CreateMission', missionId: ids.childMissionId, issuer, clientId: request.childActor.sub, authoritySet: request.authoritySet,
          authorityHash: authorityHash(issuer, request.authoritySet), intent: { ...request.intent, expires_at: checked.expiresAt.toISOString() },
          expiresAt: checked.expiresAt, approvedBy, now: ids.now, parent, child: { actor: request.childActor, fanout: checked.fanout },
          parentBounds: { expiresAt: checked.parent.expiresAt, intentResources: checked.parent.intent.resources },
        }, ids.context, { hashChain: true });
        await this.afterChildCreated?.(checked.parent.missionId, ids.childMissionId);
        await cascadeIfLineageEnded(this.store, this.lineage, { parentMissionId: checked.parent.missionId, childMissionId: ids.childMissionId }, { ...ids.context, now: this.clock.now() });
      });
      await handleCommand(this.store, grantStreamName(ids.grantId), grantDecider, {
        type: 'IssueChildGrant', grantId: ids.grantId, missionId: ids.childMissionId, parentMissionId: checked.parent.missionId,
        clientId: request.childActor.sub, grantHash: grantTokenHash(ids.grantToken), lineageJkts: resolved.lineageJkts, expiresAt: ids.grantExpiresAt, now: ids.now,
      }, ids.context);
    });
  }

  /**
   * Spec 2.6, 6 rule 2: a refusal at steps 3–10 is recorded as `denied` evidence on the parent's
   * evidence stream, then answered with its spec 7 error. Anything that is not a denial is rethrown.
   */
  private async denied(error: unknown, request: ChildCreationRequest, parent: MissionState, ids: EvidenceIds, checksRun: readonly CreationCheck[], now: Date): Promise<unknown> {
    const denial = childDenialOf(error);
    if (denial === undefined || !missionExists(parent)) return error;
    const evidence = deniedEvidence(this.oauth.issuer, request, parent, { ...denial, checksRun }, ids, now);
    await appendDeniedEvidence(this.store, parent.missionId, evidence, commandContext({ id: request.client.client_id, role: 'client' }, `par:child:${ids.evidenceId}`, now, request.trace));
    this.logger.info({ ...traceLogFields(request.trace), parent_mission_id: parent.missionId, client_id: request.client.client_id, child_client_id: request.childActor.sub, denial_reason: denial.reason, refused_by: checksRun[checksRun.length - 1] }, 'child mission creation denied');
    return childDenialProtocolError(denial.reason, denial.message);
  }
}

interface CommitIds extends EvidenceIds {
  readonly grantId: string;
  readonly grantToken: string;
  readonly grantExpiresAt: Date;
  readonly now: Date;
  readonly context: CommandContext;
}

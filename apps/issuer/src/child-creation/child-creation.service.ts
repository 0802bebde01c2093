import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { WrongExpectedRevisionError, type EventStore } from '@mission/event-store';
import { aggregateStream, decideAndAppend, handleCommand, metadataFor, type AggregateState, type CommandContext } from '@mission/es-kit';
import {
  activeChildCount, authorityHash, childEvidenceStreamName, childExpiry, grantDecider, grantIdFromBytes, grantStreamName, grantTokenFromBytes, grantTokenHash,
  delegationIdFromBytes, missionDecider, missionExists, missionIdFromBytes, missionStreamName, requireChildActorAllowed, requireCreationPolicy,
  requireDelegableParent, requireFanOut, requireLineageActive, requireParentMatch, requireStrictSubset,
  type Actor, type AttenuationRecord, type AuthoritySet, type CascadeMode, type ChildActor, type ChildCreationDeniedData, type ChildCreationPolicyRule,
  type ChildEvidence, type FanOutRecord, type Mission, type MissionIntent, type MissionState, type ParentLink, type RegisteredActor,
} from '@mission/issuer-domain';
import { assertDpopBinding, InvalidGrantError, type Clock, type VerifiedDpopProof } from '@mission/issuer-oauth';
import { EVENT_STORE, LOGGER, SERVICE_CONFIG } from '@mission/platform';
import { ClientRegistry } from '../clients/client-registry.js';
import type { ClientRegistration, IssuerConfig } from '../config/issuer-config.js';
import { MissionLineage } from '../missions/mission-lineage.js';
import { CLOCK } from '../oauth/clock.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { asProtocolErrors } from '../authorization/domain-errors.js';
import { cascadeIfLineageEnded, parentNotActiveIfCascaded } from './cascade-if-lineage-ended.js';
import { childDenialOf, childDenialProtocolError, TemporarilyUnavailableError } from './child-creation-errors.js';
import { childRequestUri, parentGrantIdOf } from './child-creation-steps.js';

const CHILD_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:mission-child-creation';
/** Conflicts on the parent stream mean another creation or transition committed; each retry re-runs steps 3–10. */
const MAX_COMMIT_ATTEMPTS = 25;

/** What the PAR controller parsed (syntax only) from a Child Mission creation request. */
export interface ChildCreationRequest {
  readonly client: ClientRegistration;
  readonly claimedParent: string;
  readonly parentToken: string;
  readonly childActor: ChildActor;
  readonly intent: MissionIntent;
  readonly authoritySet: AuthoritySet;
  readonly cascadeMode: CascadeMode;
  /** The DPoP proof of the parent grant's key, with `ath` over parent_token (DESIGN 2.2, 2.4). */
  readonly proof: VerifiedDpopProof;
}

export interface ChildCreated {
  readonly requestUri: string;
  readonly expiresIn: number;
  readonly childMissionId: string;
}

/** Test hook: runs between the checks (steps 3–9) and the commit (step 10), to stage races. */
export type BeforeCommitHook = (parentMissionId: string) => Promise<void>;
export const BEFORE_CHILD_COMMIT = Symbol('BEFORE_CHILD_COMMIT');
/** Test hook: runs between two writes of step 10, to stage creation/cascade interleavings (decision 0021). */
export type CreationStepHook = (parentMissionId: string, childMissionId: string) => Promise<void>;

/**
 * Spec 4.1 Child Mission creation, steps 2–11 (step 1, client authentication, is the controller's).
 * Steps 3–9 are the pure checks of `@mission/issuer-domain` over the parent state read in step 4;
 * step 10 appends `ChildMissionAttached` to the parent's stream at exactly that revision (DESIGN 2.4
 * "Serialization"), then creates the child and its creation grant; step 11's `created` evidence is in
 * the attachment event. Every refusal after the parent is resolved leaves a `denied` evidence record.
 */
@Injectable()
export class ChildCreations {
  private readonly policies: ReadonlyMap<string, ChildCreationPolicyRule>;

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

  async create(request: ChildCreationRequest): Promise<ChildCreated> {
    const parentMissionId = await this.resolveParent(request);
    const evidenceId = delegationIdFromBytes(randomBytes(16));
    const childMissionId = missionIdFromBytes(randomBytes(16));
    const grantId = grantIdFromBytes(randomBytes(16));
    const grantToken = grantTokenFromBytes(grantId, randomBytes(32));
    const actor: Actor = { id: request.client.client_id, role: 'client' };

    for (let attempt = 1; ; attempt++) {
      const now = this.clock.now();
      const read = await this.lineage.load(parentMissionId);
      let outcome: Checked;
      try {
        outcome = await this.check(request, read, now);
      } catch (error) {
        throw await this.denied(error, request, read.state, { parentMissionId, evidenceId, childMissionId }, now);
      }
      await this.beforeCommit?.(parentMissionId);
      const evidence = this.createdEvidence(request, outcome, evidenceId, childMissionId, now);
      const grantExpiresAt = new Date(now.getTime() + this.config.child_missions.creation_grant_ttl_seconds * 1000);
      const context = this.context(actor, `par:child:${evidenceId}`, now);
      try {
        // Step 10 (DESIGN 2.4): the commit point, at the parent revision steps 4 and 8 were decided on.
        await decideAndAppend(this.store, missionStreamName(parentMissionId), missionDecider, read, {
          type: 'attachChild', childMissionId, childClientId: request.childActor.sub, parentEntryIndexes: outcome.justifiedBy, actor, now,
          grantId, grantExpiresAt, cascadeMode: request.cascadeMode, evidence,
        }, context, { hashChain: true });
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError && attempt < MAX_COMMIT_ATTEMPTS) continue;
        if (error instanceof WrongExpectedRevisionError) throw new TemporarilyUnavailableError('the parent mission is busy; retry the request');
        throw await this.denied(error, request, read.state, { parentMissionId, evidenceId, childMissionId }, now);
      }
      await this.afterAttach?.(parentMissionId, childMissionId);
      await this.commitChild(request, outcome, { childMissionId, grantId, grantToken, grantExpiresAt, evidenceId, now, context });
      this.logger.info({ parent_mission_id: parentMissionId, mission_id: childMissionId, client_id: request.client.client_id, child_client_id: request.childActor.sub, attempts: attempt }, 'child mission created');
      return { requestUri: childRequestUri(grantToken), expiresIn: this.config.child_missions.creation_grant_ttl_seconds, childMissionId };
    }
  }

  /**
   * Spec 4.1 step 2, spec 5 rule 2, DESIGN 2.2/2.4: the parent is the mission of the grant `parent_token`
   * belongs to — its current refresh token, held by this client, presented with a proof of its bound key.
   * Failures here resolve no parent, so no evidence is filed under one (decision 0009); they are logged.
   */
  private async resolveParent(request: ChildCreationRequest): Promise<string> {
    try {
      const grantId = parentGrantIdOf(request.parentToken);
      const { state: grant } = await aggregateStream(this.store, grantStreamName(grantId), grantDecider);
      const current = grant.status === 'active' && grant.refreshTokenHash === grantTokenHash(request.parentToken);
      if (!current || grant.status !== 'active') throw new InvalidGrantError('parent_token is not a current refresh token of this issuer');
      if (grant.clientId !== request.client.client_id) throw new InvalidGrantError('parent_token was issued to another client');
      assertDpopBinding(request.proof, grant.jkt!, 'parent_token');
      return grant.missionId;
    } catch (error) {
      this.logger.warn({ client_id: request.client.client_id, reason: error instanceof Error ? error.message : 'unknown' }, 'child mission creation: parent_token did not resolve a parent');
      throw error;
    }
  }

  /** Spec 4.1 steps 3–9 in order, over the parent state read for this attempt. */
  private async check(request: ChildCreationRequest, read: AggregateState<MissionState>, now: Date): Promise<Checked> {
    const parent = read.state;
    if (!missionExists(parent)) throw new InvalidGrantError('the parent grant has no mission');
    requireParentMatch(parent.missionId, request.claimedParent);
    const ancestors = await this.lineage.ancestors(parent);
    requireLineageActive([parent, ...ancestors], now);
    requireDelegableParent(parent);
    const admitting = requireChildActorAllowed(parent, request.authoritySet, request.childActor, this.registered(request.childActor), this.oauth.issuer);
    const justifiedBy = requireStrictSubset(parent, request.authoritySet, admitting);
    const expiresAt = childExpiry(new Date(request.intent.expires_at), parent.expiresAt);
    const depth = (parent.parent?.depth ?? 0) + 1;
    const fanout = requireFanOut(parent, justifiedBy);
    const basis = requireCreationPolicy(parent, justifiedBy, this.policies, { now, childExpiresAt: expiresAt, childDepth: depth });
    return { parent, justifiedBy, expiresAt, depth, fanout, basis };
  }

  /** DESIGN 2.2: the child actor as registered — never what the request claims about it. */
  private registered(actor: ChildActor): RegisteredActor | undefined {
    const client = this.clients.findClient(actor.sub);
    if (client === undefined || !this.clients.mayUseGrant(client, CHILD_GRANT_TYPE)) return undefined;
    return { sub: client.client_id, iss: this.oauth.issuer, sub_profile: client.sub_profile };
  }

  /** After the attachment: the child (spec 2.1, `parent` per 2.3) and its creation grant (DESIGN 2.4); spec 4.1 rule 1: decision 0021. */
  private async commitChild(request: ChildCreationRequest, checked: Checked, ids: CommitIds): Promise<void> {
    const issuer = this.oauth.issuer;
    const parent: ParentLink = {
      id: checked.parent.missionId, issuer, authority_hash: checked.parent.authorityHash, depth: checked.depth,
      delegation_id: ids.evidenceId, cascade_mode: request.cascadeMode, created_at: ids.now.toISOString(),
    };
    const approvedBy: Actor = { id: checked.basis, role: 'policy' };
    await asProtocolErrors(async () => {
      await parentNotActiveIfCascaded(this.logger, checked.parent.missionId, async () => {
        await handleCommand(this.store, missionStreamName(ids.childMissionId), missionDecider, {
          type: 'create', missionId: ids.childMissionId, issuer, clientId: request.childActor.sub, authoritySet: request.authoritySet,
          authorityHash: authorityHash(issuer, request.authoritySet), intent: { ...request.intent, expires_at: checked.expiresAt.toISOString() },
          expiresAt: checked.expiresAt, approvedBy, now: ids.now, parent, child: { actor: request.childActor, fanout: checked.fanout },
        }, ids.context, { hashChain: true });
        await this.afterChildCreated?.(checked.parent.missionId, ids.childMissionId);
        await cascadeIfLineageEnded(this.store, this.lineage, { parentMissionId: checked.parent.missionId, childMissionId: ids.childMissionId }, { ...ids.context, now: this.clock.now() });
      });
      await handleCommand(this.store, grantStreamName(ids.grantId), grantDecider, {
        type: 'issueChildGrant', grantId: ids.grantId, missionId: ids.childMissionId, parentMissionId: checked.parent.missionId,
        clientId: request.childActor.sub, grantHash: grantTokenHash(ids.grantToken), expiresAt: ids.grantExpiresAt, now: ids.now,
      }, ids.context);
    });
  }

  private createdEvidence(request: ChildCreationRequest, checked: Checked, evidenceId: string, childMissionId: string, now: Date): ChildEvidence {
    const issuer = this.oauth.issuer;
    return {
      evidence_id: evidenceId,
      parent: { id: checked.parent.missionId, issuer, authority_hash: checked.parent.authorityHash },
      child: { id: childMissionId, issuer, authority_hash: authorityHash(issuer, request.authoritySet) },
      child_actor: request.childActor,
      requested_by: request.client.client_id,
      attenuation: {
        ...this.attenuation(request, ALL_CHECKS, 'strict_subset'),
        approved_authority: request.authoritySet,
        justified_by: checked.justifiedBy,
        approved_expires_at: checked.expiresAt.toISOString(),
      },
      fanout: checked.fanout,
      cascade_mode: request.cascadeMode,
      decision: 'created',
      approval_basis: checked.basis,
      created_at: now.toISOString(),
    };
  }

  /**
   * Spec 2.6, 6 rule 2: a refusal at steps 3–10 is recorded as `denied` evidence on the parent's
   * evidence stream, then answered with its spec 7 error. Anything that is not a denial is rethrown.
   */
  private async denied(error: unknown, request: ChildCreationRequest, parent: MissionState, ids: DeniedIds, now: Date): Promise<unknown> {
    const { parentMissionId, evidenceId, childMissionId } = ids;
    const denial = childDenialOf(error);
    if (denial === undefined || !missionExists(parent)) return error;
    const issuer = this.oauth.issuer;
    const fanout = fanOutCounters(parent);
    const evidence: ChildEvidence = {
      evidence_id: evidenceId,
      parent: { id: parent.missionId, issuer, authority_hash: parent.authorityHash },
      // Spec 2.6: `child` is REQUIRED — the identifier this attempt was given (never used by a mission) and the
      // hash of the requested set, so a refused attempt is as traceable as a created one.
      child: { id: childMissionId, issuer, authority_hash: authorityHash(issuer, request.authoritySet) },
      child_actor: request.childActor,
      requested_by: request.client.client_id,
      attenuation: { ...this.attenuation(request, CHECKS_BEFORE[denial.reason], denial.reason === 'not_strict_subset' || denial.reason === 'delegation_not_permitted' ? 'not_strict_subset' : 'not_evaluated'), detail: denial.message },
      ...(fanout.length > 0 ? { fanout } : {}),
      cascade_mode: request.cascadeMode,
      decision: 'denied',
      denial_reason: denial.reason,
      created_at: now.toISOString(),
    };
    const data: ChildCreationDeniedData = { parent_mission_id: parentMissionId, evidence };
    try {
      const metadata = metadataFor(this.context({ id: request.client.client_id, role: 'client' }, `par:child:${evidenceId}`, now));
      await this.store.appendToStream(childEvidenceStreamName(parentMissionId), [{ type: 'ChildCreationDenied', data: data as never, metadata: metadata as never }]);
    } catch (storeError) {
      this.logger.error({ err: storeError, parent_mission_id: parentMissionId, denial_reason: denial.reason }, 'could not record denied child evidence');
    }
    this.logger.info({ parent_mission_id: parentMissionId, client_id: request.client.client_id, child_client_id: request.childActor.sub, denial_reason: denial.reason }, 'child mission creation denied');
    return childDenialProtocolError(denial.reason, denial.message);
  }

  private attenuation(request: ChildCreationRequest, checks: readonly string[], result: AttenuationRecord['result']): AttenuationRecord {
    return { result, checks, requested_authority: request.authoritySet, requested_expires_at: request.intent.expires_at };
  }

  private context(actor: Actor, causationId: string, now: Date): CommandContext {
    return { correlationId: randomUUID(), causationId, actor, now };
  }
}

interface Checked {
  readonly parent: Mission;
  readonly justifiedBy: readonly number[];
  readonly expiresAt: Date;
  readonly depth: number;
  readonly fanout: FanOutRecord[];
  readonly basis: string;
}

interface CommitIds {
  readonly childMissionId: string;
  readonly grantId: string;
  readonly grantToken: string;
  readonly grantExpiresAt: Date;
  readonly evidenceId: string;
  readonly now: Date;
  readonly context: CommandContext;
}

/** The spec 4.1 checks in order, as recorded in evidence (`attenuation.checks`). */
const ALL_CHECKS = ['parent_match', 'parent_active', 'delegation_permitted', 'child_actor', 'strict_subset', 'fanout', 'policy', 'commit'] as const;
const upTo = (last: (typeof ALL_CHECKS)[number]): readonly string[] => ALL_CHECKS.slice(0, ALL_CHECKS.indexOf(last) + 1);
/** The checks that ran up to and including the one that refused, per denial reason. */
const CHECKS_BEFORE: Readonly<Record<string, readonly string[]>> = {
  parent_mismatch: upTo('parent_match'),
  parent_not_active: upTo('parent_active'),
  delegation_not_permitted: upTo('strict_subset'),
  child_actor_not_allowed: upTo('child_actor'),
  not_strict_subset: upTo('strict_subset'),
  fanout_exceeded: upTo('fanout'),
  policy_denied: upTo('policy'),
};

interface DeniedIds {
  readonly parentMissionId: string;
  readonly evidenceId: string;
  /** Allocated for the attempt; a denied attempt never creates a mission under it. */
  readonly childMissionId: string;
}

/**
 * Spec 2.6 `fanout` ("REQUIRED when fan-out controls apply") for a refused attempt: the counters of every
 * parent entry that has `max_children`, as they stood when the attempt was refused (this attempt not counted).
 */
function fanOutCounters(parent: Mission): FanOutRecord[] {
  const records: FanOutRecord[] = [];
  parent.authoritySet.forEach((entry, index) => {
    const max = entry.delegation?.children?.max_children;
    if (max !== undefined) records.push({ parent_entry: index, active_children: activeChildCount(parent, index), max_children: max });
  });
  return records;
}

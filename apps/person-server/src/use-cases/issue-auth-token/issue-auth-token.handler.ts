import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, RequestTrace } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, LOGGER, SERVICE_CONFIG, SERVICE_SETTINGS, SigningKeys, traceLogFields, type Logger, type ServiceSettings } from '@mission/platform';
import {
  effectiveState,
  missionExists,
  MissionNotFoundError,
  tokenKey,
  TOKEN_POLICIES,
  type IssuedTokenFacts,
  type Mission,
  type MissionState,
} from '@mission/ps-domain';
import { SecurityAudit } from '../../abuse/security-audit.js';
import { AgentProviderKeys } from '../../auth/agent-provider-keys.js';
import { callerKey, type AuthenticatedAgent, type AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import type { PersonServerConfig } from '../../config/person-server-config.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import type { RequestFacts } from '../../http/request-facts.js';
import { authorizeFromApproval, expiryDue } from '../../store/mission-gate.js';
import { ProbeLimiter } from '../../abuse/probe-limiter.js';
import { InvalidRequestProblem, MissionTerminatedProblem, TemporarilyUnavailableProblem } from '../../errors/problems.js';
import { mintAuthToken, UpstreamTokenError, verifyUpstreamToken, type VerifiedUpstreamToken } from '../../tokens/auth-tokens.js';
import { ResourceDirectory, ResourceUnavailableError } from '../../auth/resource-directory.js';
import { ResourceTokenError, verifyResourceToken, type VerifiedResourceToken } from '../../tokens/resource-token.js';
import { MissionLog } from '../../store/mission-log.js';
import { TokenLedger } from '../../store/token-ledger.js';
import {
  callerAsHolder,
  callerCallsOnwardsForUpstreamAudience,
  parseTokenRequest,
  refuseSubAgentCaller,
  requireAgent,
  resourceTokenNamesHolder,
  upstreamMatchesMission,
  verifiedSubAgent,
  type TokenHolder,
} from './token-request.rules.js';

export interface IssuedAuthToken {
  readonly auth_token: string;
  readonly expires_in: number;
}

/** `POST /token` (DESIGN 3.1) by `caller` with the request's JSON body. */
export class IssueAuthToken extends Command<IssuedAuthToken> {
  constructor(
    readonly caller: AuthenticatedCaller,
    readonly body: unknown,
    readonly facts: RequestFacts = {},
  ) {
    super();
  }
}

/**
 * `POST /token` (DESIGN 3.1, 3.3; spec 2.6, 3): a Resource Token → an Auth Token, recorded as a
 * Tracked Auth Token before it leaves the PS. The checks run in order, one rule each
 * (token-request.rules.ts). Termination races are closed by ordering, not by a lock:
 * the token is recorded on `pstokens-<s256>` first, then the mission is read again; if it terminated
 * in between, the token is withheld (never returned) and the answer is `mission_terminated`. So every
 * token that is returned was recorded before the termination committed, and the revocation process
 * manager — which reads `pstokens` after it sees `MissionTerminated` — always finds it.
 */
@CommandHandler(IssueAuthToken)
export class IssueAuthTokenHandler implements ICommandHandler<IssueAuthToken> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SERVICE_CONFIG) private readonly config: PersonServerConfig,
    @Inject(SERVICE_SETTINGS) private readonly settings: ServiceSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly keys: SigningKeys,
    private readonly agentProviders: AgentProviderKeys,
    private readonly resources: ResourceDirectory,
    private readonly ledger: TokenLedger,
    private readonly missionLog: MissionLog,
    private readonly audit: SecurityAudit,
    private readonly probes: ProbeLimiter,
  ) {}

  async execute({ caller: authenticated, body, facts }: IssueAuthToken): Promise<IssuedAuthToken> {
    // DESIGN 3.1: an agent's request; DESIGN 3.3: not a sub-agent's own.
    const caller = requireAgent(authenticated);
    refuseSubAgentCaller(caller);
    // Spec 5.9, 8: a caller with too many failed lookups is refused (429) before any lookup, whatever it names.
    this.probes.check(callerKey(caller));
    const request = parseTokenRequest(body);
    const now = this.clock.now();

    // DESIGN 3.1: a Resource Token of a configured resource, for this PS.
    const resource = await this.verifiedResourceToken(request.resourceToken, now);
    // DESIGN 3.3: the holder is the caller, or the sub-agent its verified agent token names.
    const holder = request.subagentToken !== undefined ? await verifiedSubAgent(request.subagentToken, caller, this.agentProviders, this.clock) : await callerAsHolder(caller);
    resourceTokenNamesHolder(resource, holder);
    // DESIGN 3.3: a call chain is proven by an Auth Token of this mission that this PS handed out to a
    // resource that declares the caller as its own (ADR 0012).
    const upstream = request.upstreamToken !== undefined ? await this.verifiedUpstream(request.upstreamToken, resource, caller, now) : undefined;

    // Spec 3: expiry first, then only an active mission of this PS lets a token through; absent and
    // not owned are one answer, as for the management operations, and both are probes (spec 5.9).
    const mission = await this.probeAudited(caller, resource.missionS256, facts, () => this.activeMission(resource.missionS256, caller, upstream, now, facts.trace));

    const ttlEnd = new Date(now.getTime() + this.config.auth_token_ttl_seconds * 1000);
    // DESIGN 3.1: `exp` never past the mission's `expires_at`.
    const capped = mission.expiresAt !== undefined && mission.expiresAt < ttlEnd ? mission.expiresAt : ttlEnd;
    // JWT `exp` has whole seconds: round down, so the tracked `exp` is exactly the token's.
    const expiresAt = new Date(Math.floor(capped.getTime() / 1000) * 1000);
    const minted = await mintAuthToken(this.keys, this.settings.baseUrl, {
      aud: resource.iss,
      cnfJwk: holder.cnfJwk,
      agent: holder.agent,
      missionS256: resource.missionS256,
      ...(resource.scope !== undefined ? { scope: resource.scope } : {}),
      issuedAt: now,
      expiresAt,
    });
    const identity = { iss: this.settings.baseUrl, jti: minted.jti };
    const context = this.context(caller, now, `token:${minted.jti}`, facts.trace);
    // Spec 2.6: recorded before it is returned.
    await this.ledger.execute(
      resource.missionS256,
      {
        type: 'RecordIssuedToken',
        approver: this.settings.baseUrl,
        missionS256: resource.missionS256,
        token: await this.facts(identity, resource, holder, caller, upstream, expiresAt),
        actor: { id: caller.agent, role: 'agent' },
        policy: upstream !== undefined ? TOKEN_POLICIES.callChain : TOKEN_POLICIES.owningAgent,
        now,
      },
      context,
    );
    // Spec 3 rule 3: a termination committed meanwhile wins; the recorded token is withheld.
    const state = await this.missionLog.state(resource.missionS256);
    const later = this.clock.now();
    if (effectiveState(state, later) !== 'active') {
      await this.ledger.execute(resource.missionS256, { type: 'WithholdToken', token: identity, actor: { id: caller.agent, role: 'agent' }, now: later }, context);
      throw new MissionTerminatedProblem(terminationReason(state as Mission, later));
    }
    this.logger.info({ ...traceLogFields(facts.trace), mission_s256: resource.missionS256, iss: identity.iss, jti: identity.jti, aud: resource.iss, agent: holder.agent }, 'auth token issued');
    return { auth_token: minted.token, expires_in: Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)) };
  }

  private async verifiedResourceToken(jwt: string, now: Date): Promise<VerifiedResourceToken> {
    try {
      return await verifyResourceToken(jwt, this.resources, this.settings.baseUrl, now);
    } catch (error) {
      if (error instanceof ResourceTokenError) throw new InvalidRequestProblem(error.message);
      if (error instanceof ResourceUnavailableError) throw new TemporarilyUnavailableProblem('the resource keys cannot be obtained right now', 5);
      throw error;
    }
  }

  private async verifiedUpstream(jwt: string, resource: VerifiedResourceToken, caller: AuthenticatedAgent, now: Date): Promise<VerifiedUpstreamToken> {
    let upstream: VerifiedUpstreamToken;
    try {
      upstream = await verifyUpstreamToken(jwt, this.keys, this.settings.baseUrl, now);
    } catch (error) {
      if (error instanceof UpstreamTokenError) throw new InvalidRequestProblem(error.message);
      throw error;
    }
    // DESIGN 3.3 (ADR 0012): who presents the chain is checked first, before anything under its mission is read.
    callerCallsOnwardsForUpstreamAudience(upstream, caller, this.resources);
    upstreamMatchesMission(upstream, resource);
    // Only a token this PS recorded and handed out proves the chain (spec 4.3 rule 4).
    const tracked = (await this.ledger.state(resource.missionS256)).tokens.get(tokenKey({ iss: this.settings.baseUrl, jti: upstream.jti }));
    // DESIGN 3.1 revocation endpoint (ADR 0016): a token its holder or audience revoked is honoured nowhere — the same answer as an unknown one.
    if (tracked === undefined || !tracked.released || tracked.revokedBy !== undefined) throw new InvalidRequestProblem('upstream_token is not an auth token of this mission');
    return upstream;
  }

  /**
   * Spec 5.9, 6: a lookup that finds no mission of this caller is a probe. It goes to the security audit
   * with a keyed digest of the reference (never the raw value), counts against the caller's failed
   * lookups (`ProbeLimiter`), and creates no mission record; the answer stays the one `mission_not_found`.
   */
  private async probeAudited<T>(caller: AuthenticatedAgent, s256: string, facts: RequestFacts, lookup: () => Promise<T>): Promise<T> {
    try {
      return await lookup();
    } catch (error) {
      if (error instanceof MissionNotFoundError) {
        this.audit.record({ kind: 'mission_probe', reason: error.auditDetail, caller, missionS256: s256, ...facts });
        this.probes.recordFailure(callerKey(caller));
      }
      throw error;
    }
  }

  /** Applies a due expiry (recorded, attributed to the PS scheduler) and returns the active mission. */
  private async activeMission(s256: string, caller: AuthenticatedAgent, upstream: VerifiedUpstreamToken | undefined, now: Date, trace: RequestTrace | undefined): Promise<Mission> {
    // Spec 5.9: the ownership answer comes from the first event alone, so its timing does not depend on the history.
    const facts = upstream === undefined ? await authorizeFromApproval(this.store, s256, { role: 'agent', id: caller.agent }) : undefined;
    // Spec 2.8: a due expiry recorded here carries the token-impact summary (a call chain reads the ledger anyway).
    const trackedTokens = facts === undefined || expiryDue(facts, now) ? await this.ledger.state(s256) : undefined;
    const { state }: { state: MissionState } = await this.missionLog.execute(
      s256,
      { type: 'ApplyMissionExpiry', now, ...(trackedTokens !== undefined ? { trackedTokens } : {}) },
      this.context(caller, now, `token-expiry:${s256}`, trace),
    );
    if (!missionExists(state) || state.approver !== this.settings.baseUrl) throw new MissionNotFoundError('absent');
    // The Owning Agent asks for itself or its sub-agents; a call chain is authorized by its upstream token,
    // which verifiedUpstream has bound to the caller (ADR 0012) and to this mission.
    if (upstream === undefined && state.agent !== caller.agent) throw new MissionNotFoundError('not_authorized');
    if (state.status !== 'active') throw new MissionTerminatedProblem(state.termination.reason);
    return state;
  }

  private async facts(
    identity: { iss: string; jti: string },
    resource: VerifiedResourceToken,
    holder: TokenHolder,
    caller: AuthenticatedAgent,
    upstream: VerifiedUpstreamToken | undefined,
    expiresAt: Date,
  ): Promise<IssuedTokenFacts> {
    const endpoint = await this.resources.revocationEndpoint(resource.iss);
    const placement: Pick<IssuedTokenFacts, 'relationship' | 'parentAgent' | 'upstream'> =
      upstream !== undefined
        ? { relationship: 'call_chain', parentAgent: upstream.agent, upstream: { iss: this.settings.baseUrl, jti: upstream.jti } }
        : holder.agent !== caller.agent
          ? { relationship: 'sub_agent', parentAgent: caller.agent }
          : { relationship: 'root' };
    return {
      ...identity,
      aud: resource.iss,
      exp: expiresAt,
      origin: 'issued',
      ...(endpoint !== undefined ? { revocationEndpoint: endpoint } : {}),
      agent: holder.agent,
      ...placement,
      ...(resource.scope !== undefined ? { scope: resource.scope } : {}),
    };
  }

  private context(caller: AuthenticatedAgent, now: Date, causation: string, trace: RequestTrace | undefined): CommandContext {
    return { correlationId: randomUUID(), causationId: causation, actor: { id: caller.agent, role: 'agent' }, now, trace };
  }
}

function terminationReason(mission: Mission, now: Date): string {
  if (mission.status === 'terminated') return mission.termination.reason;
  return mission.expiresAt !== undefined && mission.expiresAt <= now ? 'expired' : 'revoked';
}

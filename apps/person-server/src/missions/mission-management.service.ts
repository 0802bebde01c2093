import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { CommandContext } from '@mission/es-kit';
import type { EventStore, JsonObject } from '@mission/event-store';
import { EVENT_STORE, SERVICE_CONFIG } from '@mission/platform';
import {
  delegationTreeNodes,
  MissionNotFoundError,
  missionStatusRepresentation,
  visibleTrackedTokens,
  type ManagementCaller,
  type MissionStatusRepresentation,
} from '@mission/ps-domain';
import { SecurityAudit } from '../abuse/security-audit.js';
import { callerKey, type AuthenticatedCaller } from '../identity/authenticated-caller.js';
import type { PersonServerConfig } from '../config/person-server-config.js';
import { CLOCK, type Clock } from '../time/clock.js';
import { InvalidManagementRequestError } from '../errors/problem-errors.js';
import type { RequestFacts } from '../http/request-facts.js';
import { MissionLog } from '../store/mission-log.js';
import { TokenLedger } from '../store/token-ledger.js';
import { AgentTenancy } from './agent-tenancy.js';
import { authorizeFromApproval, expiryDue, type ApprovalFacts } from '../store/mission-gate.js';
import { TREE_PAGE, TreeCursors } from './tree-cursor.js';

export type { RequestFacts } from '../http/request-facts.js';

/** Spec 2.7 node. */
export interface TreeNode {
  readonly agent: string;
  readonly relationship: 'root' | 'sub_agent' | 'call_chain';
  readonly parent_agent?: string;
  readonly tokens?: readonly { readonly iss: string; readonly jti: string }[];
}

/** Spec 5.3: the role-bearing view of an authenticated caller that the ps-domain rules read. */
export function managementCaller(caller: AuthenticatedCaller): ManagementCaller {
  if (caller.kind === 'agent') return { role: 'agent', id: caller.agent };
  if (caller.role === 'person') return { role: 'person', id: caller.id, tenant: caller.tenant, ownedAgents: caller.agents };
  return { role: 'admin', id: caller.id, tenant: caller.tenant };
}

function callerRole(caller: AuthenticatedCaller): 'agent' | 'person' | 'admin' {
  return caller.kind === 'agent' ? 'agent' : caller.role;
}

/**
 * The management operations `status` and `delegation_tree` of the mission endpoint (spec 4.1, 4.3) and
 * the authorization every operation starts with (spec 5.9). `terminate` is MissionTermination's,
 * proposals and approvals MissionProposals'. Every decision is a ps-domain decider over a stream read
 * with its revision (DESIGN 1); this class only reads, appends and maps.
 */
@Injectable()
export class MissionManagement {

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SERVICE_CONFIG) private readonly config: PersonServerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly audit: SecurityAudit,
    private readonly cursors: TreeCursors,
    private readonly ledger: TokenLedger,
    private readonly missionLog: MissionLog,
    private readonly tenancy: AgentTenancy,
  ) {}

  private context(caller: AuthenticatedCaller | undefined, now: Date, causation: string): CommandContext {
    const actor = caller === undefined ? { id: 'ps', role: 'system' } : { id: caller.kind === 'agent' ? caller.agent : caller.id, role: callerRole(caller) };
    return { correlationId: randomUUID(), causationId: causation, actor, now };
  }

  // ── Management operations (spec 4) ─────────────────────────────────────────────────────────────

  /** Spec 5.9: absent and not authorized are one answer; the probe goes to the security audit with a keyed digest. */
  async authorized<T>(caller: AuthenticatedCaller, s256: string, facts: RequestFacts, work: (approval: ApprovalFacts) => Promise<T>): Promise<T> {
    try {
      // Spec 5.9: absent and not authorized cost the same one-event read, before anything history-sized.
      const approval = await authorizeFromApproval(this.store, s256, managementCaller(caller));
      return await work(approval);
    } catch (error) {
      if (error instanceof MissionNotFoundError) this.audit.record({ kind: 'mission_probe', reason: error.auditDetail, caller, missionS256: s256, ...facts });
      throw error;
    }
  }

  /** Spec 4.1: the 2.3 representation; appends MissionStatusRead (and a due expiry first). Never the blob. */
  async status(caller: AuthenticatedCaller, s256: string, facts: RequestFacts): Promise<MissionStatusRepresentation> {
    return this.authorized(caller, s256, facts, async (approval) => {
      const now = this.clock.now();
      // Spec 2.8: a due expiry recorded first carries the token-impact summary (read only then: status stays one read).
      const trackedTokens = expiryDue(approval, now) ? await this.ledger.state(s256) : undefined;
      const result = await this.missionLog.execute(
        s256,
        { type: 'readStatus', caller: managementCaller(caller), now, ...(trackedTokens !== undefined ? { trackedTokens } : {}) },
        this.context(caller, now, `status:${facts.requestId ?? randomUUID()}`),
      );
      return missionStatusRepresentation(result.state, now, this.config.status_freshness_seconds);
    });
  }

  /**
   * Spec 4.3: the nodes from verified data only: the blob's agent as root, and the sub-agent and
   * call-chain holders of Auth Tokens recorded on `pstokens-<s256>` (ps-domain `delegationTreeNodes`).
   * Appends DelegationTreeRead.
   */
  async delegationTree(caller: AuthenticatedCaller, s256: string, body: Record<string, unknown>, facts: RequestFacts): Promise<JsonObject> {
    const maxResults = body['max_results'] ?? TREE_PAGE.defaultMaxResults;
    if (typeof maxResults !== 'number' || !Number.isSafeInteger(maxResults) || maxResults < 1 || maxResults > TREE_PAGE.maxMaxResults) {
      throw new InvalidManagementRequestError(`max_results must be an integer from 1 to ${TREE_PAGE.maxMaxResults}`);
    }
    const cursor = body['cursor'];
    if (cursor !== undefined && typeof cursor !== 'string') throw new InvalidManagementRequestError('cursor must be a string');
    return this.authorized(caller, s256, facts, async (approval) => {
      const who = managementCaller(caller);
      const now = this.clock.now();
      const scope = { callerKey: callerKey(caller), missionS256: s256 };
      const offset = cursor === undefined ? 0 : this.cursors.open(cursor, scope, now);
      const trackedTokens = await this.ledger.state(s256);
      // Spec 4.3 rule 3 (ADR 0019): only nodes whose agent the caller may know — never another tenant's node, tokens
      // or anything beneath it. Spec 2.7: token identifiers for persons and administrators; an agent sees only its own.
      const visible = visibleTrackedTokens(approval.agent, trackedTokens, this.tenancy.knownTo(approval.tenant));
      const nodes = delegationTreeNodes(approval.agent, visible, approval.role === 'agent' ? { kind: 'own', agent: approval.agent } : { kind: 'all' });
      const page = nodes.slice(offset, offset + maxResults);
      const next = offset + page.length < nodes.length ? this.cursors.issue(scope, offset + page.length, now) : undefined;
      await this.missionLog.execute(
        s256,
        // Spec 2.8: a due expiry recorded first carries the token-impact summary.
        { type: 'readTree', caller: who, nodeCount: page.length, complete: next === undefined, now, trackedTokens },
        this.context(caller, now, `tree:${facts.requestId ?? randomUUID()}`),
      );
      return { mission_s256: s256, as_of: now.toISOString(), nodes: page as unknown as JsonObject[], complete: next === undefined, ...(next !== undefined ? { next_cursor: next } : {}) };
    });
  }
}





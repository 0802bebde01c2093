import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { JsonObject } from '@mission/event-store';
import { delegationTreeNodes, visibleTrackedTokens } from '@mission/ps-domain';
import type { RequestFacts } from '../../http/request-facts.js';
import { callerKey, type AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { MissionLog } from '../../store/mission-log.js';
import { TokenLedger } from '../../store/token-ledger.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import { AgentTenancy } from '../shared/agent-tenancy.js';
import { commandContext } from '../shared/command-context.js';
import { managementCaller, MissionAuthorization } from '../shared/mission-authorization.js';
import { TREE_PAGE, TreeCursors } from './tree-cursor.js';

/** Spec 2.7 node. */
export interface TreeNode {
  readonly agent: string;
  readonly relationship: 'root' | 'sub_agent' | 'call_chain';
  readonly parent_agent?: string;
  readonly tokens?: readonly { readonly iss: string; readonly jti: string }[];
}

/** Spec 4.3 `delegation_tree` of the mission `s256`: one page of at most `maxResults` nodes, after `cursor`. */
export class ReadDelegationTree extends Query<JsonObject> {
  constructor(
    readonly caller: AuthenticatedCaller,
    readonly s256: string,
    readonly maxResults: number = TREE_PAGE.defaultMaxResults,
    readonly cursor: string | undefined,
    readonly facts: RequestFacts,
  ) {
    super();
  }
}

/**
 * Spec 4.3: the nodes from verified data only: the blob's agent as root, and the sub-agent and
 * call-chain holders of Auth Tokens recorded on `pstokens-<s256>` (ps-domain `delegationTreeNodes`).
 * Appends DelegationTreeRead.
 */
@QueryHandler(ReadDelegationTree)
export class ReadDelegationTreeHandler implements IQueryHandler<ReadDelegationTree> {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly authorization: MissionAuthorization,
    private readonly cursors: TreeCursors,
    private readonly ledger: TokenLedger,
    private readonly missionLog: MissionLog,
    private readonly tenancy: AgentTenancy,
  ) {}

  execute({ caller, s256, maxResults, cursor, facts }: ReadDelegationTree): Promise<JsonObject> {
    return this.authorization.authorized(caller, s256, facts, async (approval) => {
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
        { type: 'ReadDelegationTree', caller: who, nodeCount: page.length, complete: next === undefined, now, trackedTokens },
        commandContext(caller, now, `tree:${facts.requestId ?? randomUUID()}`, facts.trace),
      );
      return { mission_s256: s256, as_of: now.toISOString(), nodes: page as unknown as JsonObject[], complete: next === undefined, ...(next !== undefined ? { next_cursor: next } : {}) };
    });
  }
}

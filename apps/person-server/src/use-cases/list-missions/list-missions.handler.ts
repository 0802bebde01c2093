import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { SERVICE_CONFIG } from '@mission/platform';
import { managementRole, missionExists, type ManagementCaller, missionStatusRepresentation, parseMissionBlob, tokenResidualForCaller, visibleTrackedTokens, type JsonObject, type ManagementRole } from '@mission/ps-domain';
import type { PersonServerConfig } from '../../config/person-server-config.js';
import { jsonShape } from '../../http/json-shape.js';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { MissionBodies } from '../../store/mission-bodies.js';
import { MissionLog } from '../../store/mission-log.js';
import { TokenLedger } from '../../store/token-ledger.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import { AgentTenancy } from '../shared/agent-tenancy.js';
import { batchedEntries, fillPage, MAX_EXAMINED_PER_PAGE } from '../shared/listing-page.js';
import { managementCaller } from '../shared/mission-authorization.js';
import { decodeMissionCursor, encodeMissionCursor, type MissionCursor } from './mission-cursor.js';
import type { MissionIndexEntry } from './mission-index.projection.js';
import { MissionIndexReadModel } from './mission-index.read-model.js';
import { compareNewestFirst, type IndexScope } from './mission-index.store.js';
import { MISSIONS_PAGE, MissionsListBody } from './missions-list.body.js';

export interface MissionsPage {
  readonly missions: readonly JsonObject[];
  readonly complete: boolean;
  readonly next_cursor?: string;
}

/** `POST /missions/list` (ADR 0040) with the request's JSON body. */
export class ListMissions extends Query<MissionsPage> {
  constructor(
    readonly caller: AuthenticatedCaller,
    readonly body: unknown,
  ) {
    super();
  }
}

/**
 * ADR 0040: the caller's page of missions, newest first — a person's missions of the agents it owns, an
 * administrator's every mission of its tenant (spec 5.3 roles, the same rule as every management operation);
 * an agent and anyone else get exactly the empty listing. Filtering happens before paging, so nothing about
 * other callers' missions (count, cursor, error) reaches the caller (spec 5.9 applied to listings). Each entry
 * is read from the mission's own streams (status as spec 4.1 computes it, `token_residual` of the tokens the
 * caller may know, spec 2.5 / ADR 0019) without appending anything: a listing is not a `status` operation.
 */
@QueryHandler(ListMissions)
export class ListMissionsHandler implements IQueryHandler<ListMissions> {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: PersonServerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly index: MissionIndexReadModel,
    private readonly missionLog: MissionLog,
    private readonly ledger: TokenLedger,
    private readonly bodies: MissionBodies,
    private readonly tenancy: AgentTenancy,
  ) {}

  async execute({ caller, body }: ListMissions): Promise<MissionsPage> {
    const { max_results: maxResults, cursor, status, mission_s256: only } = jsonShape(MissionsListBody, body ?? {}, 'the request must be a JSON object');
    const after = cursor !== undefined ? decodeMissionCursor(cursor) : undefined;
    const pageSize = maxResults ?? MISSIONS_PAGE.defaultMaxResults;
    if (caller.kind !== 'principal') return { missions: [], complete: true };
    const who = managementCaller(caller);
    await this.index.catchUp();
    const page = await fillPage(this.candidates(who, only, after), { pageSize, maxExamined: MAX_EXAMINED_PER_PAGE }, async (entry) => {
      // The index's scope is this rule already; it stays the one every management operation checks.
      const role = managementRole(entry, who);
      const view = role === undefined ? undefined : await this.view(entry, role);
      return view !== undefined && (status === undefined || view['mission_status'] === status) ? view : undefined;
    });
    return page.complete ? { missions: page.items, complete: true } : { missions: page.items, complete: false, next_cursor: encodeMissionCursor(page.last!) };
  }

  /**
   * The caller's missions strictly after the cursor, in the listing's order, read from the index a batch at a time:
   * an administrator's every mission of its tenant, a person's of the agents it owns (spec 5.3 roles), or the one
   * mission asked for if the caller may see it.
   */
  private *candidates(who: ManagementCaller, only: string | undefined, after: MissionCursor | undefined): Generator<MissionIndexEntry> {
    if (who.role === 'agent') return;
    if (only !== undefined) {
      const entry = this.index.entry(only);
      if (entry !== undefined && (after === undefined || compareNewestFirst(after, entry) < 0)) yield entry;
      return;
    }
    const scope: IndexScope = who.role === 'person' ? { tenant: who.tenant, agents: who.ownedAgents } : { tenant: who.tenant };
    yield* batchedEntries<MissionCursor, MissionIndexEntry>((from, limit) => this.index.page(scope, from, limit), after);
  }

  private async view(entry: MissionIndexEntry, role: ManagementRole): Promise<JsonObject | undefined> {
    const state = await this.missionLog.state(entry.missionS256);
    if (!missionExists(state)) return undefined;
    const now = this.clock.now();
    const all = await this.ledger.state(entry.missionS256);
    const visible = visibleTrackedTokens(entry.agent, all, this.tenancy.knownTo(entry.tenant));
    const residual = tokenResidualForCaller(all, visible, now, { untrackedAccessModes: this.config.untracked_access_modes });
    return {
      ...(missionStatusRepresentation(state, now, this.config.status_freshness_seconds) as unknown as JsonObject),
      agent: entry.agent,
      caller_role: role,
      ...(state.blobDeleted !== undefined ? { body_deleted: true } : await this.body(entry.missionS256)),
      token_residual: residual,
    };
  }

  /** The mission body's readable members, or `body_deleted` once an administrator deleted it (spec 3 rule 5). */
  private async body(s256: string): Promise<JsonObject> {
    const bytes = await this.bodies.blob(s256);
    if (bytes === 'deleted') return { body_deleted: true };
    if (bytes === undefined) return {};
    const fields = parseMissionBlob(bytes);
    return {
      description: fields.description,
      ...(fields.approved_tools !== undefined ? { approved_tools: [...fields.approved_tools] } : {}),
      ...(fields.approved_resources !== undefined ? { approved_resources: [...fields.approved_resources] } : {}),
    };
  }
}

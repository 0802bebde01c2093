import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { jsonShape } from '../../http/json-shape.js';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { MissionBodies } from '../../store/mission-bodies.js';
import { batchedEntries, fillPage, MAX_EXAMINED_PER_PAGE } from '../shared/listing-page.js';
import { decodePendingCursor, encodePendingCursor, type PendingCursor } from './pending-cursor.js';
import type { PendingProposalEntry } from './pending-proposals.projection.js';
import { PENDING_PAGE, PendingProposalsBody } from './pending-proposals.body.js';
import { PendingProposalsReadModel } from './pending-proposals.read-model.js';
import { PendingVisibility } from './pending-visibility.js';

/** One listed proposal: what a person needs to decide (DESIGN 3.1 proposal members) and its pending id. */
export interface PendingProposalView {
  readonly pending_id: string;
  readonly agent: string;
  readonly submitted_at: string;
  readonly description: string;
  readonly tools?: readonly string[];
  readonly resources?: readonly string[];
  readonly expires_at?: string;
}

export interface PendingProposalsPage {
  readonly proposals: readonly PendingProposalView[];
  readonly complete: boolean;
  readonly next_cursor?: string;
}

/** `POST /proposals/pending` (ADR 0034) with the request's JSON body. */
export class ListPendingProposals extends Query<PendingProposalsPage> {
  constructor(
    readonly caller: AuthenticatedCaller,
    readonly body: unknown,
  ) {
    super();
  }
}

/**
 * The caller's page of pending proposals, oldest first. Filtering happens before paging, so a caller who may
 * see nothing gets exactly the answer of an empty listing (`{"proposals":[],"complete":true}`): no count, no
 * cursor, no error that would tell it proposals exist (spec 5.9's anti-oracle rule, applied to listings).
 */
@QueryHandler(ListPendingProposals)
export class ListPendingProposalsHandler implements IQueryHandler<ListPendingProposals> {
  constructor(
    private readonly readModel: PendingProposalsReadModel,
    private readonly visibility: PendingVisibility,
    private readonly bodies: MissionBodies,
  ) {}

  async execute({ caller, body }: ListPendingProposals): Promise<PendingProposalsPage> {
    const { max_results: maxResults, cursor } = jsonShape(PendingProposalsBody, body ?? {}, 'the request must be a JSON object');
    const after = cursor !== undefined ? decodePendingCursor(cursor) : undefined;
    const pageSize = maxResults ?? PENDING_PAGE.defaultMaxResults;
    const visible = this.visibility.visibleTo(caller);
    const agents = this.visibility.visibleAgents(caller);
    if (agents.length === 0) return { proposals: [], complete: true };
    await this.readModel.catchUp();
    const page = await fillPage(this.candidates(agents, after), { pageSize, maxExamined: MAX_EXAMINED_PER_PAGE }, async (entry): Promise<PendingProposalView | undefined> => {
      // The model reads only the caller's agents' ranges; the visibility rule stays the one checked on every entry.
      if (!visible(entry.agent)) return undefined;
      // Decided (and its content deleted) since the projection saw it: no longer pending, left out.
      const content = await this.bodies.proposalContent(entry.pendingId);
      return content === undefined ? undefined : { pending_id: entry.pendingId, agent: entry.agent, submitted_at: entry.submittedAt, ...content };
    });
    return page.complete ? { proposals: page.items, complete: true } : { proposals: page.items, complete: false, next_cursor: encodePendingCursor(page.last!) };
  }

  /** The pending proposals of `agents` strictly after the cursor, oldest first, read from the model a batch at a time. */
  private candidates(agents: readonly string[], after: PendingCursor | undefined): Generator<PendingProposalEntry> {
    return batchedEntries<PendingCursor, PendingProposalEntry>((from, limit) => this.readModel.page(agents, from, limit), after);
  }
}

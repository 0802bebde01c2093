import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { jsonShape } from '../../http/json-shape.js';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { MissionBodies } from '../../store/mission-bodies.js';
import { decodePendingCursor, encodePendingCursor } from './pending-cursor.js';
import { comparePending } from './pending-proposals.projection.js';
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
    const candidates = (await this.readModel.current()).filter((entry) => visible(entry.agent) && (after === undefined || comparePending(entry, after) > 0));
    const proposals: PendingProposalView[] = [];
    let last: (typeof candidates)[number] | undefined;
    for (const entry of candidates) {
      if (proposals.length === pageSize) break;
      last = entry;
      // Decided (and its content deleted) since the projection saw it: no longer pending, left out.
      const content = await this.bodies.proposalContent(entry.pendingId);
      if (content === undefined) continue;
      proposals.push({ pending_id: entry.pendingId, agent: entry.agent, submitted_at: entry.submittedAt, ...content });
    }
    const complete = last === undefined || last === candidates[candidates.length - 1];
    return complete ? { proposals, complete: true } : { proposals, complete: false, next_cursor: encodePendingCursor(last!) };
  }
}

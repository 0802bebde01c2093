import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { EventStore } from '@mission/event-store';
import { ProtocolError } from '@mission/issuer-oauth';
import { EVENT_STORE } from '@mission/platform';
import type { ClientRegistration } from '../../config/issuer-config.js';
import { DEFAULT_EVIDENCE_RESULTS, readChildEvidence } from '../../evidence/child-evidence.reader.js';
import { loadAccessibleMission } from '../../lineage/mission-access.js';
import { MissionLineage } from '../../lineage/mission-lineage.js';

/** DESIGN 2.1 `POST /missions/evidence` (permission `audit`). */
export class ReadChildEvidence extends Query<Record<string, unknown>> {
  constructor(
    readonly client: ClientRegistration,
    readonly missionId: string | undefined,
    /** The page asked for, or the refusal of its shape (raised after the mission check). */
    readonly page: { readonly maxResults?: number; readonly cursor?: string } | ProtocolError,
  ) {
    super();
  }
}

/**
 * The spec 2.6 Child Evidence of creations under `mission_id`, `created` and `denied` merged in `created_at`
 * order; `max_results` (default 100, at most 1000) per page and an opaque `cursor` (`next_cursor` of the previous page).
 */
@QueryHandler(ReadChildEvidence)
export class ReadChildEvidenceHandler implements IQueryHandler<ReadChildEvidence> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly lineage: MissionLineage,
  ) {}

  async execute({ client, missionId, page: asked }: ReadChildEvidence): Promise<Record<string, unknown>> {
    const { mission } = await loadAccessibleMission(this.lineage, missionId, client, 'audit');
    if (asked instanceof ProtocolError) throw asked;
    const page = await readChildEvidence(this.store, mission.missionId, {
      maxResults: asked.maxResults ?? DEFAULT_EVIDENCE_RESULTS,
      ...(asked.cursor !== undefined ? { cursor: asked.cursor } : {}),
    });
    return { mission_id: mission.missionId, evidence: page.evidence, ...(page.nextCursor !== undefined ? { next_cursor: page.nextCursor } : {}) };
  }
}

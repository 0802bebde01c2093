import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { EventStore } from '@mission/event-store';
import { InvalidRequestError, type Clock } from '@mission/issuer-oauth';
import { EVENT_STORE } from '@mission/platform';
import { formOf } from '../http/oauth-form.js';
import { CLOCK } from '../oauth/clock.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { DEFAULT_EVIDENCE_RESULTS, MAX_EVIDENCE_RESULTS, readChildEvidence } from './child-evidence.reader.js';
import { loadAccessibleMission } from './mission-access.js';
import { MissionLineage } from './mission-lineage.js';
import { MAX_TREE_NODES } from './mission-tree.projection.js';
import { MissionTreeReadModel } from './mission-tree.read-model.js';

const MAX_RESULTS = /^[1-9][0-9]{0,3}$/;
const MAX_CURSOR_PARAMETER = 512;

/**
 * DESIGN 2.1 audit endpoints (permission `audit`; the caller's own missions and their descendants, or
 * any with `admin`; everything else the identical `404 not_found`). Spec 5 rule 7: evidence and
 * lineage go only to authorized audit consumers, never cached.
 */
@Controller('missions')
export class MissionAuditController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly oauth: IssuerOAuth,
    private readonly lineage: MissionLineage,
    private readonly trees: MissionTreeReadModel,
  ) {}

  /**
   * `/missions/tree`: the delegation tree under `mission_id` from the tree read model — per node
   * mission_id, parent_id, client_id, lineage state, depth, cascade_mode, created_at, expires_at and the
   * fan-out counters of each delegable entry — breadth-first, at most MAX_TREE_NODES (`truncated`).
   * `observed_at` is when the states were evaluated; `projection` how far the model had read.
   */
  @Post('tree')
  @HttpCode(200)
  async tree(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Record<string, unknown>> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const { mission } = await loadAccessibleMission(this.lineage, form.optional('mission_id', 64), client, 'audit');
    const caughtUp = await this.trees.catchUp();
    const now = this.clock.now();
    const tree = this.trees.projection.tree(mission.missionId, now, MAX_TREE_NODES);
    const applied = this.trees.projection.appliedThrough;
    response.setHeader('Cache-Control', 'no-store');
    return {
      mission_id: mission.missionId,
      observed_at: now.toISOString(),
      projection: {
        caught_up: caughtUp,
        ...(applied ? { position: applied.position, applied_through: applied.recordedAt } : {}),
      },
      nodes: tree?.nodes ?? [],
      truncated: tree?.truncated ?? false,
    };
  }

  /**
   * `/missions/evidence`: the spec 2.6 Child Evidence of creations under `mission_id`, `created` and
   * `denied` merged in `created_at` order; `max_results` (default 100, at most 1000) per page and an
   * opaque `cursor` (`next_cursor` of the previous page).
   */
  @Post('evidence')
  @HttpCode(200)
  async evidence(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Record<string, unknown>> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const { mission } = await loadAccessibleMission(this.lineage, form.optional('mission_id', 64), client, 'audit');
    const maxResults = form.optional('max_results', 4);
    if (maxResults !== undefined && (!MAX_RESULTS.test(maxResults) || Number(maxResults) > MAX_EVIDENCE_RESULTS)) {
      throw new InvalidRequestError(`max_results must be an integer from 1 to ${MAX_EVIDENCE_RESULTS}`);
    }
    const cursor = form.optional('cursor', MAX_CURSOR_PARAMETER);
    const page = await readChildEvidence(this.store, mission.missionId, {
      maxResults: maxResults === undefined ? DEFAULT_EVIDENCE_RESULTS : Number(maxResults),
      ...(cursor !== undefined ? { cursor } : {}),
    });
    response.setHeader('Cache-Control', 'no-store');
    return { mission_id: mission.missionId, evidence: page.evidence, ...(page.nextCursor !== undefined ? { next_cursor: page.nextCursor } : {}) };
  }
}

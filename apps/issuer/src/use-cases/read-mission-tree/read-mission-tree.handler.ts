import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Clock } from '@mission/issuer-oauth';
import type { ClientRegistration } from '../../config/issuer-config.js';
import { loadAccessibleMission } from '../../lineage/mission-access.js';
import { MissionLineage } from '../../lineage/mission-lineage.js';
import { CLOCK } from '../../oauth/clock.js';
import { MAX_TREE_NODES } from '../../read-models/mission-tree.projection.js';
import { MissionTreeReadModel } from '../../read-models/mission-tree.read-model.js';

/** DESIGN 2.1 `POST /missions/tree` (permission `audit`). */
export class ReadMissionTree extends Query<Record<string, unknown>> {
  constructor(
    readonly client: ClientRegistration,
    readonly missionId: string | undefined,
  ) {
    super();
  }
}

/**
 * The delegation tree under `mission_id` from the tree read model — per node mission_id, parent_id, client_id,
 * lineage state, depth, cascade_mode, created_at, expires_at and the fan-out counters of each delegable entry —
 * breadth-first, at most MAX_TREE_NODES (`truncated`). `observed_at` is when the states were evaluated;
 * `projection` how far the model had read.
 */
@QueryHandler(ReadMissionTree)
export class ReadMissionTreeHandler implements IQueryHandler<ReadMissionTree> {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly lineage: MissionLineage,
    private readonly trees: MissionTreeReadModel,
  ) {}

  async execute({ client, missionId }: ReadMissionTree): Promise<Record<string, unknown>> {
    const { mission } = await loadAccessibleMission(this.lineage, missionId, client, 'audit');
    const caughtUp = await this.trees.catchUp();
    const now = this.clock.now();
    const tree = this.trees.projection.tree(mission.missionId, now, MAX_TREE_NODES);
    const applied = this.trees.projection.appliedThrough;
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
}

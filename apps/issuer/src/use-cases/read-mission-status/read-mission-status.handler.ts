import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { missionStatusView } from '@mission/issuer-domain';
import type { Clock } from '@mission/issuer-oauth';
import { SERVICE_CONFIG, SigningKeys } from '@mission/platform';
import type { ClientRegistration, IssuerConfig } from '../../config/issuer-config.js';
import { parentStatusProjection, reportedState } from '../../lineage/lineage-report.js';
import { loadAccessibleMission } from '../../lineage/mission-access.js';
import { MissionLineage } from '../../lineage/mission-lineage.js';
import { CLOCK } from '../../oauth/clock.js';
import { IssuerOAuth } from '../../oauth/issuer-oauth.service.js';
import { signMissionStatusResponse } from './mission-status-response.js';

/** DESIGN 2.1 `POST /missions/status`: the signed answer (a compact JWT). */
export class ReadMissionStatus extends Query<string> {
  constructor(
    readonly client: ClientRegistration,
    readonly missionId: string | undefined,
    readonly audience: string | undefined,
    readonly nonce: string | undefined,
  ) {
    super();
  }
}

/**
 * A signed answer, no fresher than `mission_max_stale_seconds`. The state is the lineage state (spec 3.2,
 * 4.3); a Child Mission's answer carries the spec 2.7 `parent` projection, the parent's state read in this request.
 */
@QueryHandler(ReadMissionStatus)
export class ReadMissionStatusHandler implements IQueryHandler<ReadMissionStatus> {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: IssuerConfig,
    private readonly oauth: IssuerOAuth,
    private readonly keys: SigningKeys,
    private readonly lineage: MissionLineage,
  ) {}

  async execute({ client, missionId, audience, nonce }: ReadMissionStatus): Promise<string> {
    const { mission, ancestors } = await loadAccessibleMission(this.lineage, missionId, client, 'status');
    const now = this.clock.now();
    const parent = parentStatusProjection(mission, ancestors, now);
    return signMissionStatusResponse(
      {
        issuer: this.oauth.issuer,
        audience: audience ?? client.client_id,
        mission: { ...missionStatusView(mission, now), state: reportedState(mission, ancestors, now), ...(parent ? { parent } : {}) },
        now,
        maxStaleSeconds: this.config.mission_max_stale_seconds,
        ...(nonce !== undefined ? { nonce } : {}),
      },
      this.keys,
    );
  }
}

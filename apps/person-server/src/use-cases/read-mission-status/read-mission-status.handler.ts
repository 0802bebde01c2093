import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { SERVICE_CONFIG } from '@mission/platform';
import { missionStatusRepresentation, type MissionStatusRepresentation } from '@mission/ps-domain';
import type { PersonServerConfig } from '../../config/person-server-config.js';
import type { RequestFacts } from '../../http/request-facts.js';
import type { AuthenticatedCaller } from '../../identity/authenticated-caller.js';
import { MissionLog } from '../../store/mission-log.js';
import { expiryDue } from '../../store/mission-gate.js';
import { TokenLedger } from '../../store/token-ledger.js';
import { CLOCK, type Clock } from '../../time/clock.js';
import { commandContext } from '../shared/command-context.js';
import { managementCaller, MissionAuthorization } from '../shared/mission-authorization.js';

/** Spec 4.1 `status` of the mission `s256` (a well-formed Mission Reference). */
export class ReadMissionStatus extends Query<MissionStatusRepresentation> {
  constructor(
    readonly caller: AuthenticatedCaller,
    readonly s256: string,
    readonly facts: RequestFacts,
  ) {
    super();
  }
}

/** Spec 4.1: the 2.3 representation; appends MissionStatusRead (and a due expiry first). Never the blob. */
@QueryHandler(ReadMissionStatus)
export class ReadMissionStatusHandler implements IQueryHandler<ReadMissionStatus> {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: PersonServerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly authorization: MissionAuthorization,
    private readonly ledger: TokenLedger,
    private readonly missionLog: MissionLog,
  ) {}

  execute({ caller, s256, facts }: ReadMissionStatus): Promise<MissionStatusRepresentation> {
    return this.authorization.authorized(caller, s256, facts, async (approval) => {
      const now = this.clock.now();
      // Spec 2.8: a due expiry recorded first carries the token-impact summary (read only then: status stays one read).
      const trackedTokens = expiryDue(approval, now) ? await this.ledger.state(s256) : undefined;
      const result = await this.missionLog.execute(
        s256,
        { type: 'ReadMissionStatus', caller: managementCaller(caller), now, ...(trackedTokens !== undefined ? { trackedTokens } : {}) },
        commandContext(caller, now, `status:${facts.requestId ?? randomUUID()}`, facts.trace),
      );
      return missionStatusRepresentation(result.state, now, this.config.status_freshness_seconds);
    });
  }
}

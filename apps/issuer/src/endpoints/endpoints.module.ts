import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { LineageModule } from '../lineage/lineage.module.js';
import { IssuerOAuthModule } from '../oauth/oauth.module.js';
import { ReadModelsModule } from '../read-models/read-models.module.js';
import { TokensModule } from '../tokens/tokens.module.js';
import { ChangeMissionLifecycleHandler } from '../use-cases/change-mission-lifecycle/change-mission-lifecycle.handler.js';
import { CreateChildMissionHandler } from '../use-cases/create-child-mission/create-child-mission.handler.js';
import { DecideAuthorizationRequestHandler } from '../use-cases/decide-authorization-request/decide-authorization-request.handler.js';
import { IntrospectTokenHandler } from '../use-cases/introspect-token/introspect-token.handler.js';
import { PushAuthorizationRequestHandler } from '../use-cases/push-authorization-request/push-authorization-request.handler.js';
import { ReadChildEvidenceHandler } from '../use-cases/read-child-evidence/read-child-evidence.handler.js';
import { ReadMissionStatusHandler } from '../use-cases/read-mission-status/read-mission-status.handler.js';
import { ReadMissionTreeHandler } from '../use-cases/read-mission-tree/read-mission-tree.handler.js';
import { ReadPendingAuthorizationRequestHandler } from '../use-cases/read-pending-authorization-request/read-pending-authorization-request.handler.js';
import { RedeemAuthorizationCodeHandler } from '../use-cases/redeem-authorization-code/redeem-authorization-code.handler.js';
import { RedeemChildGrantHandler } from '../use-cases/redeem-child-grant/redeem-child-grant.handler.js';
import { RefreshTokensHandler } from '../use-cases/refresh-tokens/refresh-tokens.handler.js';
import { RevokeTokenHandler } from '../use-cases/revoke-token/revoke-token.handler.js';
import { AuthorizeController } from './authorize.controller.js';
import { IntrospectionController } from './introspection.controller.js';
import { MissionAuditController } from './mission-audit.controller.js';
import { MissionsController } from './missions.controller.js';
import { OperatorController } from './operator.controller.js';
import { ParController } from './par.controller.js';
import { TokenController } from './token.controller.js';

/**
 * The issuer's HTTP surface: controllers translate a request into a command or query (CommandBus /
 * QueryBus, @nestjs/cqrs); one handler per use case in `use-cases/<name>/` loads, decides and appends.
 */
@Module({
  imports: [CqrsModule, IssuerOAuthModule, LineageModule, ReadModelsModule, TokensModule],
  controllers: [ParController, AuthorizeController, TokenController, MissionsController, IntrospectionController, MissionAuditController, OperatorController],
  providers: [
    PushAuthorizationRequestHandler, ReadPendingAuthorizationRequestHandler, DecideAuthorizationRequestHandler,
    CreateChildMissionHandler,
    RedeemAuthorizationCodeHandler, RefreshTokensHandler, RedeemChildGrantHandler, RevokeTokenHandler,
    ChangeMissionLifecycleHandler, ReadMissionStatusHandler, IntrospectTokenHandler, ReadMissionTreeHandler, ReadChildEvidenceHandler,
  ],
})
export class EndpointsModule {}

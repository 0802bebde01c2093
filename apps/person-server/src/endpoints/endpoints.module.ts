import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AbuseModule } from '../abuse/abuse.module.js';
import { AuditDigestKey } from '../abuse/audit-digest-key.js';
import { AuthenticationModule } from '../auth/authentication.module.js';
import { RevocationModule } from '../revocation/revocation.module.js';
import { StoreModule } from '../store/store.module.js';
import { ClockModule } from '../time/clock.module.js';
import { DecideProposalHandler } from '../use-cases/decide-proposal/decide-proposal.handler.js';
import { DeleteMissionBodyHandler } from '../use-cases/delete-mission-body/delete-mission-body.handler.js';
import { IssueAuthTokenHandler } from '../use-cases/issue-auth-token/issue-auth-token.handler.js';
import { ListMissionsHandler } from '../use-cases/list-missions/list-missions.handler.js';
import { MissionIndexReadModel } from '../use-cases/list-missions/mission-index.read-model.js';
import { ListPendingProposalsHandler } from '../use-cases/list-pending-proposals/list-pending-proposals.handler.js';
import { PendingProposalsReadModel } from '../use-cases/list-pending-proposals/pending-proposals.read-model.js';
import { PendingVisibility } from '../use-cases/list-pending-proposals/pending-visibility.js';
import { PollProposalHandler } from '../use-cases/poll-proposal/poll-proposal.handler.js';
import { ProposeMissionHandler } from '../use-cases/propose-mission/propose-mission.handler.js';
import { ReadDelegationTreeHandler } from '../use-cases/read-delegation-tree/read-delegation-tree.handler.js';
import { TreeCursors } from '../use-cases/read-delegation-tree/tree-cursor.js';
import { ReadMissionStatusHandler } from '../use-cases/read-mission-status/read-mission-status.handler.js';
import { RevokeAuthTokenHandler } from '../use-cases/revoke-auth-token/revoke-auth-token.handler.js';
import { AgentTenancy } from '../use-cases/shared/agent-tenancy.js';
import { ApprovalCompletion } from '../use-cases/shared/approval-completion.js';
import { MissionAuthorization } from '../use-cases/shared/mission-authorization.js';
import { ReferenceLookups } from '../use-cases/shared/reference-lookups.js';
import { ManagementRefusals } from '../use-cases/terminate-mission/management-refusals.js';
import { ReplacementLookup } from '../use-cases/terminate-mission/replacement-lookup.js';
import { TerminateMissionHandler } from '../use-cases/terminate-mission/terminate-mission.handler.js';
import { TerminationGates } from '../use-cases/terminate-mission/termination-gates.js';
import { MissionBlobDeletionController } from './mission-blob-deletion.controller.js';
import { ConsoleController } from './console.controller.js';
import { MissionController } from './mission.controller.js';
import { MissionsListController } from './missions-list.controller.js';
import { ProposalsController } from './proposals.controller.js';
import { RevocationController } from './revocation.controller.js';
import { TokenController } from './token.controller.js';

/**
 * The Person Server's HTTP surface (DESIGN 3.1): controllers translate a request into a command or query
 * (CommandBus / QueryBus, @nestjs/cqrs); one handler per use case in `use-cases/<name>/` loads, decides
 * (ps-domain deciders) and appends. Every dependency is imported explicitly; none of these modules is global.
 */
@Module({
  imports: [CqrsModule, ClockModule, AbuseModule, AuthenticationModule, StoreModule, RevocationModule],
  controllers: [MissionController, MissionBlobDeletionController, ProposalsController, MissionsListController, TokenController, RevocationController, ConsoleController],
  providers: [
    // Use cases (one handler each).
    ProposeMissionHandler,
    PollProposalHandler,
    DecideProposalHandler,
    ReadMissionStatusHandler,
    ReadDelegationTreeHandler,
    TerminateMissionHandler,
    DeleteMissionBodyHandler,
    IssueAuthTokenHandler,
    RevokeAuthTokenHandler,
    ListPendingProposalsHandler,
    ListMissionsHandler,
    // What several use cases share, and the parts of one.
    MissionAuthorization,
    ReferenceLookups,
    ApprovalCompletion,
    AgentTenancy,
    ReplacementLookup,
    ManagementRefusals,
    TerminationGates,
    PendingProposalsReadModel,
    PendingVisibility,
    MissionIndexReadModel,
    { provide: TreeCursors, inject: [AuditDigestKey], useFactory: (key: AuditDigestKey) => new TreeCursors(key) },
  ],
})
export class EndpointsModule {}

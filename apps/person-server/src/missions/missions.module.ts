import { Module } from '@nestjs/common';
import { AuditDigestKey } from '../abuse/audit-digest-key.js';
import { MissionController } from './mission.controller.js';
import { AgentTenancy } from './agent-tenancy.js';
import { ManagementRefusals } from './management-refusals.js';
import { MissionBodies } from '../store/mission-bodies.js';
import { MissionManagement } from './mission-management.service.js';
import { MissionProposals } from './mission-proposals.service.js';
import { MissionTermination } from './mission-termination.service.js';
import { ReplacementLookup } from './replacement-lookup.js';
import { TerminationGates } from './termination-gates.js';
import { TreeCursors } from './tree-cursor.js';

/**
 * The mission endpoint of the Person Server (DESIGN 3.1, spec 4): proposals, approvals and the
 * management operations. Needs the global authentication (clock, authenticator) and abuse modules; the
 * failed-lookup limiter (ProbeLimiter) is the abuse module's, one budget shared with POST /token (spec 5.9).
 */
@Module({
  controllers: [MissionController],
  providers: [
    MissionManagement,
    MissionTermination,
    MissionProposals,
    MissionBodies,
    ReplacementLookup,
    ManagementRefusals,
    AgentTenancy,
    TerminationGates,
    { provide: TreeCursors, inject: [AuditDigestKey], useFactory: (key: AuditDigestKey) => new TreeCursors(key) },
  ],
  exports: [MissionManagement, MissionProposals, MissionBodies, MissionTermination, TerminationGates, TreeCursors],
})
export class MissionsModule {}

import { Module } from '@nestjs/common';
import { AuditDigestKey } from '../abuse/audit-digest-key.js';
import { CLOCK, type Clock } from '../http/clock.js';
import { MissionController } from './mission.controller.js';
import { MissionManagement } from './mission-management.service.js';
import { ProbeLimiter } from './probe-limiter.js';
import { TreeCursors } from './tree-cursor.js';

/**
 * The mission endpoint of the Person Server (DESIGN 3.1, spec 4): proposals, approvals and the
 * management operations. Needs the global authentication (clock, authenticator) and abuse modules.
 */
@Module({
  controllers: [MissionController],
  providers: [
    MissionManagement,
    { provide: TreeCursors, inject: [AuditDigestKey], useFactory: (key: AuditDigestKey) => new TreeCursors(key) },
    { provide: ProbeLimiter, inject: [CLOCK], useFactory: (clock: Clock) => new ProbeLimiter(clock) },
  ],
  exports: [MissionManagement, TreeCursors],
})
export class MissionsModule {}

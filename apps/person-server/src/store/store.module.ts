import { Module } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, LOGGER, type Logger } from '@mission/platform';
import { AbuseModule } from '../abuse/abuse.module.js';
import { AuditDigestKey } from '../abuse/audit-digest-key.js';
import { TokenLedger } from './token-ledger.js';
import { KnownApprovals } from './known-approvals.js';
import { MissionBodies } from './mission-bodies.js';
import { MissionLog } from './mission-log.js';
import { MissionSnapshots } from './mission-snapshots.js';

/**
 * The cached, group-committed write side of the per-mission streams (`psmission-…`, `pstokens-…`), one per
 * replica, and the deletable body streams (`psproposalbody-…`, `psblob-…`). The mission log starts a cold fold
 * from its snapshots (`pssnapshot-…`, ADR 0059), authenticated with the deployment's audit HMAC key.
 */
@Module({
  imports: [AbuseModule],
  providers: [
    {
      provide: MissionLog,
      inject: [EVENT_STORE, AuditDigestKey, LOGGER],
      useFactory: (store: EventStore, key: AuditDigestKey, logger: Logger) => {
        const log = logger.child({ component: 'mission-snapshots' });
        const snapshots = new MissionSnapshots(
          store,
          key,
          ({ s256, reason }) => log.warn({ mission_s256: s256, reason }, 'mission snapshot rejected: the mission is folded from its first event'),
          (s256, err) => log.error({ mission_s256: s256, err }, 'mission snapshot not written'),
        );
        return new MissionLog(store, snapshots);
      },
    },
    { provide: TokenLedger, inject: [EVENT_STORE], useFactory: (store: EventStore) => new TokenLedger(store) },
    MissionBodies,
    { provide: KnownApprovals, useFactory: () => new KnownApprovals() },
  ],
  exports: [MissionLog, TokenLedger, MissionBodies, KnownApprovals],
})
export class StoreModule {}

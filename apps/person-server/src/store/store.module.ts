import { Module } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE } from '@mission/platform';
import { TokenLedger } from './token-ledger.js';
import { MissionBodies } from './mission-bodies.js';
import { MissionLog } from './mission-log.js';

/**
 * The cached, group-committed write side of the per-mission streams (`psmission-…`, `pstokens-…`), one per
 * replica, and the deletable body streams (`psproposalbody-…`, `psblob-…`).
 */
@Module({
  providers: [
    { provide: MissionLog, inject: [EVENT_STORE], useFactory: (store: EventStore) => new MissionLog(store) },
    { provide: TokenLedger, inject: [EVENT_STORE], useFactory: (store: EventStore) => new TokenLedger(store) },
    MissionBodies,
  ],
  exports: [MissionLog, TokenLedger, MissionBodies],
})
export class StoreModule {}

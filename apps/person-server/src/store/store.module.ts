import { Global, Module } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE } from '@mission/platform';
import { TokenLedger } from './token-ledger.js';
import { MissionLog } from './mission-log.js';

/** The cached, group-committed write side of the per-mission streams (`psmission-…`, `pstokens-…`), one per replica. */
@Global()
@Module({
  providers: [
    { provide: MissionLog, inject: [EVENT_STORE], useFactory: (store: EventStore) => new MissionLog(store) },
    { provide: TokenLedger, inject: [EVENT_STORE], useFactory: (store: EventStore) => new TokenLedger(store) },
  ],
  exports: [MissionLog, TokenLedger],
})
export class StoreModule {}

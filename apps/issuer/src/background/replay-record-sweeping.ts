import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { DEFAULT_EXPIRED_RECORD_GRACE_MS, ExpiredRecordSweeper } from '@mission/es-kit';
import { JTI_REPLAY_RECORDS, type Clock } from '@mission/issuer-oauth';
import { EVENT_STORE, LOGGER } from '@mission/platform';
import type { Logger } from 'pino';
import { CLOCK } from '../oauth/clock.js';

/**
 * Issue 15 item 5, ADR 0057: removes the `clientjti-…` / `dpopjti-…` replay records once their tokens are
 * refused on their own time claims (plus the grace), so they stop growing the store forever.
 */
@Injectable()
export class ReplayRecordSweeping implements OnModuleInit, OnApplicationShutdown {
  readonly sweeper: ExpiredRecordSweeper;

  constructor(@Inject(EVENT_STORE) store: EventStore, @Inject(CLOCK) clock: Clock, @Inject(LOGGER) logger: Logger) {
    this.sweeper = new ExpiredRecordSweeper(store, JTI_REPLAY_RECORDS, {
      clock: () => clock.now(),
      graceMs: DEFAULT_EXPIRED_RECORD_GRACE_MS,
      logger: logger.child({ component: 'replay-records' }),
    });
  }

  onModuleInit(): void {
    this.sweeper.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
  }
}

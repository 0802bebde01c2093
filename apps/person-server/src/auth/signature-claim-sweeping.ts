import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { DEFAULT_EXPIRED_RECORD_GRACE_MS, ExpiredRecordSweeper } from '@mission/es-kit';
import { EVENT_STORE, LOGGER, type Logger } from '@mission/platform';
import { CLOCK, type Clock } from '../time/clock.js';
import { SIGNATURE_CLAIM_RECORDS } from './stored-signature-claims.js';

/**
 * Issue 15 item 5, ADR 0057: removes `pssig-…` signature claims once their signatures are refused on their own
 * `created`/`expires` window (plus the grace), so one record per authenticated request no longer stays forever.
 */
@Injectable()
export class SignatureClaimSweeping implements OnModuleInit, OnApplicationShutdown {
  readonly sweeper: ExpiredRecordSweeper;

  constructor(@Inject(EVENT_STORE) store: EventStore, @Inject(CLOCK) clock: Clock, @Inject(LOGGER) logger: Logger) {
    this.sweeper = new ExpiredRecordSweeper(store, SIGNATURE_CLAIM_RECORDS, {
      clock: () => clock.now(),
      graceMs: DEFAULT_EXPIRED_RECORD_GRACE_MS,
      logger: logger.child({ component: 'signature-claims' }),
    });
  }

  onModuleInit(): void {
    this.sweeper.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
  }
}

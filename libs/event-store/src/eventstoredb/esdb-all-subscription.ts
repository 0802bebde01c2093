import type { AllStreamSubscription } from '@eventstore/db-client';
import type { AllSubscription, RecordedEvent } from '../port/event-store.js';
import { formatPosition, type Position } from '../port/position.js';
import { START, type EsdbClient } from './esdb-client.js';
import { isRetryableSubscriptionError, toPortError } from './esdb-errors.js';
import { isAfter, positionOf, toRecordedEvent, type AllEventsView } from './esdb-events.js';
import type { EventStoreDbLogger } from './esdb-logger.js';

/** Re-subscription back-off: doubles from the first delay up to the cap, with jitter. */
export const RESUBSCRIBE_FIRST_DELAY_MS = 100;
export const RESUBSCRIBE_MAX_DELAY_MS = 10_000;
/** A subscription that stayed up this long (or delivered anything) counts as healthy again. */
const HEALTHY_AFTER_MS = 30_000;

export interface AllSubscriptionOptions {
  readonly client: EsdbClient;
  readonly view: AllEventsView;
  readonly after: Position | undefined;
  readonly logger: EventStoreDbLogger;
  readonly onFinished: (subscription: ResubscribingAllSubscription) => void;
}

/**
 * A catch-up subscription to `$all` that outlives the server's subscriptions.
 *
 * The server may end a subscription at any time (restart, leader change, a slow consumer, a network
 * cut). Each time, this re-subscribes from the last position it handed out, after a bounded
 * exponential back-off, and logs it. Positions at or before the last delivered one are dropped, so
 * neither an inclusive resume nor a replayed page can duplicate an event, and since every resume
 * starts at the last delivered position nothing after it can be skipped. The iteration ends only
 * through close() (or the consumer leaving the loop); an error that re-subscribing cannot fix is
 * thrown from the iterator rather than swallowed.
 */
export class ResubscribingAllSubscription implements AllSubscription {
  private closed = false;
  private current: AllStreamSubscription | undefined;
  private readonly stopWaiting = new AbortController();
  private readonly iterator: AsyncGenerator<RecordedEvent, void, undefined>;

  constructor(private readonly options: AllSubscriptionOptions) {
    this.iterator = this.run();
  }

  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    return this.iterator;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopWaiting.abort();
    await cancel(this.current);
    await this.iterator.return(undefined);
    this.options.onFinished(this);
  }

  private async *run(): AsyncGenerator<RecordedEvent, void, undefined> {
    const { client, view, logger } = this.options;
    let lastDelivered = this.options.after;
    let failures = 0;
    try {
      if (view.matchesNothing) {
        await this.pause(Number.POSITIVE_INFINITY);
        return;
      }
      while (!this.closed) {
        const subscription = client.subscribeToAll({ fromPosition: lastDelivered ?? START, filter: view.serverFilter(), resolveLinkTos: false });
        this.current = subscription;
        if (failures > 0) {
          const attempt = failures;
          subscription.once('confirmation', () =>
            logger.info({ event_store: 'eventstoredb', resume_after: lastDelivered ? formatPosition(lastDelivered) : 'start', attempt }, 're-subscribed to $all'),
          );
        }
        const startedAt = Date.now();
        let delivered = false;
        let failure: unknown;
        try {
          for await (const resolved of subscription) {
            const event = resolved.event;
            if (!event) continue;
            const position = positionOf(event);
            // The server resumes after the given position; this guard keeps that true whatever it does.
            if (!isAfter(position, lastDelivered) || !view.shows(event)) continue;
            const recorded = toRecordedEvent(event);
            lastDelivered = position;
            delivered = true;
            yield recorded;
          }
        } catch (error) {
          failure = error;
        } finally {
          this.current = undefined;
          await cancel(subscription);
        }
        if (this.closed) return;
        if (failure !== undefined && !isRetryableSubscriptionError(failure)) throw toPortError(failure, { operation: 'subscription to $all' });
        failures = delivered || Date.now() - startedAt >= HEALTHY_AFTER_MS ? 1 : failures + 1;
        const delayMs = backoffDelay(failures);
        logger.warn(
          {
            event_store: 'eventstoredb',
            resume_after: lastDelivered ? formatPosition(lastDelivered) : 'start',
            attempt: failures,
            delay_ms: delayMs,
            reason: failure === undefined ? 'server ended the subscription' : describe(failure),
          },
          'subscription to $all dropped; re-subscribing from the last delivered position',
        );
        await this.pause(delayMs);
      }
    } finally {
      this.closed = true;
      this.options.onFinished(this);
    }
  }

  private pause(ms: number): Promise<void> {
    const signal = this.stopWaiting.signal;
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

export function backoffDelay(attempt: number): number {
  const ceiling = Math.min(RESUBSCRIBE_MAX_DELAY_MS, RESUBSCRIBE_FIRST_DELAY_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/**
 * `unsubscribe()` cancels the gRPC call, but the client swallows its own cancellation error and
 * never ends the stream it hands out; destroying it is what releases a pending `for await`.
 */
async function cancel(subscription: AllStreamSubscription | undefined): Promise<void> {
  if (!subscription || subscription.destroyed) return;
  try {
    await subscription.unsubscribe();
  } catch {
    // The call never started (server unreachable): there is nothing to cancel.
  }
  subscription.destroy();
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

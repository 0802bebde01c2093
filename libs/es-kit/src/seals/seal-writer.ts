import { formatPosition, WrongExpectedRevisionError, type AllSubscription, type EventStore, type Position } from '@mission/event-store';
import { eventHash } from '../hash-chain.js';
import { SEAL_EVENT_TYPE, SealSegment, entriesDigest, isSealedStream, sealGenesis, sealStreamName, sha256Text, type SealPayload } from './seal-segment.js';
import type { SealSigner } from './seal-jws.js';
import { readLastSeal, type SealHead } from './seal-head.js';

export interface SealWriterOptions {
  readonly store: EventStore;
  /** Names the seal stream `auditseal-<service>` and goes into every seal. */
  readonly service: string;
  readonly signer: SealSigner;
  /** Seal at the latest after this many events (default 1,000). */
  readonly everyEvents?: number;
  /** …or this long after the first unsealed event was seen (default 5,000 ms). */
  readonly everyMs?: number;
  /**
   * At stop, seal at most this many events the subscription had not delivered yet (default 20,000, about a
   * second of hashing); a longer tail is left to the next start, which resumes after the last seal. Without the
   * bound, a stop during a catch-up over a long unsealed history hashed all of it: 46 s on 1,000,000 events,
   * far past the drain timeout (issue 15 item 6, ADR 0061).
   */
  readonly maxEventsAtStop?: number;
  readonly now?: () => Date;
  readonly logger?: { error(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

/** Seals stay far below the store's 1 MB append limit even with long stream names. */
const MAX_SEAL_ENTRY_BYTES = 400_000;

/**
 * Appends signed seals over everything written to the store (ADR 0028). Durable and checkpointed by its
 * own output: the last seal names the last position it covers, so a restart (or another replica) resumes
 * right after it, and every seal is appended with the expected revision of the seal stream — two replicas
 * never seal one range twice; the one that loses reloads the head and carries on from there.
 */
export class SealWriter {
  private head: SealHead | undefined;
  private segment = new SealSegment();
  private lastSeen: Position | undefined;
  private subscription: AllSubscription | undefined;
  private consuming: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: SealWriterOptions) {}

  get streamName(): string {
    return sealStreamName(this.options.service);
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.follow();
    const every = this.options.everyMs ?? 5_000;
    this.timer = setInterval(() => void this.exclusive(() => this.sealPending()).catch(() => undefined), every);
    this.timer.unref();
  }

  /**
   * Stops following the store and seals what was committed before the call, also what the subscription had not
   * delivered yet, up to `maxEventsAtStop` of those: a clean shutdown of a writer that kept up leaves no unsealed
   * tail, and one that was far behind stops in bounded time (the next start seals the rest).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.subscription?.close();
    await this.consuming;
    await this.exclusive(() => this.sealRest()).catch(() => undefined);
  }

  /** Seals the events seen so far now (tests, shutdown). */
  flush(): Promise<void> {
    return this.exclusive(() => this.sealPending());
  }

  private async follow(): Promise<void> {
    this.head = await readLastSeal(this.options.store, this.streamName);
    this.segment = new SealSegment();
    this.lastSeen = this.head?.through;
    const subscription = this.options.store.subscribeToAll(this.head ? { after: this.head.through } : {});
    this.subscription = subscription;
    this.consuming = this.consume(subscription);
  }

  private async consume(subscription: AllSubscription): Promise<void> {
    const every = this.options.everyEvents ?? 1_000;
    try {
      for await (const event of subscription) {
        if (!isSealedStream(event.streamName)) continue;
        // A failed seal is logged by `exclusive` and retried with the next event or tick; following goes on.
        await this.exclusive(async () => {
          if (subscription !== this.subscription) return;
          this.segment.add(event.streamName, event.revision, eventHash(event));
          this.lastSeen = event.position;
          if (this.segment.events >= every || this.segment.approxBytes >= MAX_SEAL_ENTRY_BYTES) await this.sealPending();
        }).catch(() => undefined);
      }
    } catch (error) {
      if (!this.stopped) this.options.logger?.error({ err: error, seal_stream: this.streamName }, 'seal writer stopped following the store');
    }
  }

  private async sealRest(): Promise<void> {
    const every = this.options.everyEvents ?? 1_000;
    const maxCount = this.options.maxEventsAtStop ?? 20_000;
    for await (const event of this.options.store.readAll({ ...(this.lastSeen ? { after: this.lastSeen } : {}), maxCount })) {
      this.lastSeen = event.position;
      if (!isSealedStream(event.streamName)) continue;
      this.segment.add(event.streamName, event.revision, eventHash(event));
      if (this.segment.events >= every || this.segment.approxBytes >= MAX_SEAL_ENTRY_BYTES) await this.sealPending();
    }
    await this.sealPending();
  }

  private async sealPending(): Promise<void> {
    const through = this.lastSeen;
    if (this.segment.events === 0 || !through) return;
    const entries = this.segment.entries();
    const seq = this.head ? this.head.seq + 1 : 0;
    const payload: SealPayload = {
      typ: 'mission-audit-seal',
      service: this.options.service,
      seq,
      prev: this.head ? sha256Text(this.head.jws) : sealGenesis(this.options.service),
      after: this.head ? formatPosition(this.head.through) : null,
      through: formatPosition(through),
      events: this.segment.events,
      entries_digest: entriesDigest(entries),
      sealed_at: (this.options.now?.() ?? new Date()).toISOString(),
    };
    const jws = await this.options.signer.sign(payload);
    try {
      const result = await this.options.store.appendToStream(
        this.streamName,
        [{ type: SEAL_EVENT_TYPE, data: { entries, jws }, metadata: { actor: { id: this.options.service, role: 'system' }, occurred_at: payload.sealed_at } }],
        { expectedRevision: this.head ? this.head.revision : 'no_stream' },
      );
      this.head = { seq, jws, through, revision: result.nextExpectedRevision };
      this.segment = new SealSegment();
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      // Another replica sealed first: start over after its seal.
      this.options.logger?.info({ seal_stream: this.streamName }, 'another writer sealed first; resuming after its seal');
      await this.subscription?.close();
      if (!this.stopped) await this.follow();
    }
  }

  /** One thing at a time: events are added and seals written in order, never concurrently. */
  private exclusive<T>(work: () => Promise<T> | T): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch((error: unknown) => {
      this.options.logger?.error({ err: error, seal_stream: this.streamName }, 'sealing failed; retrying with the next event or tick');
    });
    return run;
  }
}

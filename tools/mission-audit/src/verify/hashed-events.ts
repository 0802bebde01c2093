import { eventHash } from '@mission/es-kit';
import type { RecordedEvent } from '@mission/event-store';
import type { AuditSource } from '../source/audit-source.js';
import { HashPool } from './hash-pool.js';

export interface HashOptions {
  /** Worker threads that hash stored records (ADR 0036); 0: hash on the main thread. */
  readonly hashWorkers?: number;
  readonly workerUrl?: URL;
}

/** Pages handed to workers before the oldest one's hashes are awaited: bounds memory and keeps the workers busy. */
const PAGES_AHEAD_PER_WORKER = 2;

/**
 * Every event of the global order with its `eventHash`, in order. With hash workers, pages that carry
 * their stored texts are hashed on the workers while the main thread reads and decodes the next ones;
 * an event a worker could not hash, and every page without stored texts, is hashed here.
 */
export async function forEachHashedEvent(source: AuditSource, options: HashOptions, visit: (event: RecordedEvent, hash: string) => void): Promise<void> {
  const workers = options.hashWorkers ?? 0;
  if (workers <= 0) {
    for await (const page of source.readAllPages()) for (const event of page.events) visit(event, eventHash(event));
    return;
  }
  const pool = new HashPool(workers, options.workerUrl);
  const ahead: { events: readonly RecordedEvent[]; hashes: Promise<readonly (string | null)[]> | undefined }[] = [];
  const visitOldest = async (): Promise<void> => {
    const { events, hashes } = ahead.shift()!;
    const computed = hashes ? await hashes : undefined;
    events.forEach((event, index) => visit(event, computed?.[index] ?? eventHash(event)));
  };
  try {
    for await (const page of source.readAllPages()) {
      ahead.push({ events: page.events, hashes: page.storedTexts ? pool.hash(page) : undefined });
      if (ahead.length > workers * PAGES_AHEAD_PER_WORKER) await visitOldest();
    }
    while (ahead.length > 0) await visitOldest();
  } finally {
    // Pages never awaited (an error above) must not surface as unhandled rejections.
    for (const { hashes } of ahead) hashes?.catch(() => undefined);
    await pool.close();
  }
}

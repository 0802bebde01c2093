import { Worker } from 'node:worker_threads';
import type { EventPage } from '../source/audit-source.js';

export interface HashRequest {
  readonly id: number;
  readonly streams: readonly string[];
  readonly revisions: readonly bigint[];
  readonly texts: readonly string[];
}

export interface HashResponse {
  readonly id: number;
  /** null where the worker could not hash the event: the main thread hashes it itself. */
  readonly hashes: readonly (string | null)[];
}

/** The built worker script next to this module (dist/verify/hash-worker.js). */
export const DEFAULT_HASH_WORKER = new URL('./hash-worker.js', import.meta.url);

/**
 * `eventHash` of stored records on worker threads (ADR 0036): pages go to the workers in turn and each
 * page's hashes come back as a promise, so the caller keeps the global order by awaiting them in order.
 * A worker that fails rejects every page still waiting: verify then cannot run (exit 2).
 */
export class HashPool {
  private readonly workers: Worker[];
  private readonly waiting = new Map<number, { resolve: (hashes: readonly (string | null)[]) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private failure: Error | undefined;

  constructor(size: number, workerUrl: URL = DEFAULT_HASH_WORKER) {
    this.workers = Array.from({ length: size }, () => {
      const worker = new Worker(workerUrl);
      worker.on('message', ({ id, hashes }: HashResponse) => {
        this.waiting.get(id)?.resolve(hashes);
        this.waiting.delete(id);
      });
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => this.fail(new Error(`a hash worker stopped (exit code ${code})`)));
      return worker;
    });
  }

  /** Hashes of the page's events, from their stored texts (the page must carry them). */
  hash(page: EventPage): Promise<readonly (string | null)[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const request: HashRequest = {
      id, streams: page.events.map((event) => event.streamName), revisions: page.events.map((event) => event.revision), texts: page.storedTexts!,
    };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.workers[id % this.workers.length]!.postMessage(request);
    });
  }

  async close(): Promise<void> {
    this.failure ??= new Error('the hash pool was closed');
    for (const worker of this.workers) worker.removeAllListeners('exit');
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const { reject } of this.waiting.values()) reject(error);
    this.waiting.clear();
  }
}

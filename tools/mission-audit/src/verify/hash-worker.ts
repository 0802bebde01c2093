import { parentPort } from 'node:worker_threads';
import { eventHash } from '@mission/es-kit';
import type { JsonObject } from '@mission/event-store';
import type { HashRequest, HashResponse } from './hash-pool.js';

/**
 * A hash worker (ADR 0036): parses each stored record itself and computes its `eventHash`, exactly as the
 * main thread would from its own parse of the same text. An event it cannot hash comes back as null and
 * the main thread hashes that one itself, so that any error is the main thread's, as without workers.
 */
parentPort!.on('message', ({ id, streams, revisions, texts }: HashRequest) => {
  const hashes = texts.map((text, index) => {
    try {
      const record = JSON.parse(text) as { type: string; data: JsonObject; metadata: JsonObject };
      return eventHash({ streamName: streams[index]!, revision: revisions[index]!, type: record.type, data: record.data, metadata: record.metadata });
    } catch {
      return null;
    }
  });
  parentPort!.postMessage({ id, hashes } satisfies HashResponse);
});

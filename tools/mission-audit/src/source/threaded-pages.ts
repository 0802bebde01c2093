import { Worker } from 'node:worker_threads';
import type { EventPage } from './audit-source.js';
import type { ReaderThreadData, ReadPage } from './reader-thread-protocol.js';
import { eventPageOf } from './stored-record.js';

type Message = ReadPage | { done: true } | { error: string };

/**
 * The built reader thread, dist/source/reader-thread.js: worker threads run plain Node, so it is the built script
 * also when this module runs from src/ (under ts-jest; `npm test` builds first). Both lie two levels down.
 */
export const DEFAULT_READER_THREAD = new URL('../../dist/source/reader-thread.js', import.meta.url);

/** Pages requested ahead of the one being checked: the reader thread stays busy while memory stays bounded. */
const PAGES_AHEAD = 3;

/**
 * The global order read and hashed on a reader thread (ADR 0037), as pages of events with their hashes. This
 * thread parses each event's head and metadata (the chain and the checks read them); `data` is parsed when a
 * check reads it.
 */
export async function* threadedPages(data: ReaderThreadData, threadUrl: URL = DEFAULT_READER_THREAD): AsyncIterable<EventPage> {
  const worker = new Worker(threadUrl, { workerData: data });
  const arrived: Message[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  const onMessage = (message: Message) => {
    arrived.push(message);
    wake?.();
  };
  worker.on('message', onMessage);
  worker.on('error', (error) => {
    failure ??= error;
    wake?.();
  });
  worker.on('exit', (code) => {
    failure ??= new Error(`the reader thread stopped (exit code ${code})`);
    wake?.();
  });
  try {
    for (let ask = 0; ask < PAGES_AHEAD; ask++) worker.postMessage('next');
    for (;;) {
      while (arrived.length === 0) {
        if (failure) throw failure;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
      const message = arrived.shift()!;
      if ('done' in message) return;
      if ('error' in message) throw new Error(`the reader thread could not read the store: ${message.error}`);
      worker.postMessage('next');
      yield eventPageOf(message);
    }
  } finally {
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}

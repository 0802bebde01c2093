import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore } from '@mission/event-store';
import type { CommandContext } from './event-metadata.js';

/** A real embedded store in a temp dir, reopenable to simulate a restart. */
export async function tempStore(): Promise<{ store: EmbeddedEventStore; restart(): Promise<EmbeddedEventStore>; dispose(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'es-kit-'));
  const handle = {
    store: await EmbeddedEventStore.open({ dataDir, subscriptionPollMs: 50 }),
    async restart() {
      await handle.store.close();
      handle.store = await EmbeddedEventStore.open({ dataDir, subscriptionPollMs: 50 });
      return handle.store;
    },
    async dispose() {
      await handle.store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}

export const context = (now = new Date('2026-11-22T10:00:00Z')): CommandContext => ({
  correlationId: 'corr-1',
  causationId: 'req-1',
  actor: { id: 'alice', role: 'person' },
  now,
});

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EmbeddedEventStore, type EventData } from '@mission/event-store';

/** A full collection, without starting node with --expose-gc (the flag is set, then `gc` read from a new context). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
}

/** An event shaped like the Person Server's MissionStatusRead (≈ 0.4 KiB of data, 0.25 KiB of metadata). */
function statusRead(index: number): EventData & { data: object; metadata: object } {
  const at = new Date(Date.UTC(2026, 10, 27) + index).toISOString();
  return {
    type: 'MissionStatusRead',
    data: {
      mission_s256: `${'m'.repeat(40)}${index}`,
      reader: { agent: `aauth:agent-${index}@agents.example`, provider: 'https://agents.example' },
      at,
      request: { id: randomUUID(), signature_created: 1_790_000_000 + index, digest: `sha-256=:${'A'.repeat(43)}=:` },
      result: 'active',
    },
    metadata: { correlation_id: randomUUID(), causation_id: randomUUID(), actor: { id: `agent-${index}`, role: 'agent' }, occurred_at: at, request_id: randomUUID() },
  };
}

/**
 * Heap the embedded store's recent-events tail keeps per event (recent-events.ts; held here at `count`, not the default capacity): `count`
 * events appended by this process, every one's `data` read by a live subscriber (as the projections do), then a full
 * GC — against the same store before the appends. Every event of the tail survives the scavenges while it is young,
 * so what it keeps is also what they copy (issue 15: a fifth of a 10k cascade's window was scavenging).
 */
export async function tailMemory(count: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tail-memory-'));
  const store = await EmbeddedEventStore.open({ dataDir: dir, recentEventsCapacity: count });
  try {
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    let jsonChars = 0;
    for (let start = 0; start < count; start += 100) {
      const writes: Array<Promise<unknown>> = [];
      for (let index = start; index < Math.min(count, start + 100); index++) {
        const event = statusRead(index);
        jsonChars += JSON.stringify(event.data).length + JSON.stringify(event.metadata).length;
        writes.push(store.appendToStream(`mission-${index % 64}`, [event]));
      }
      await Promise.all(writes);
    }
    let seen = 0;
    const subscription = store.subscribeToAll({});
    for await (const event of subscription) {
      if (typeof event.data !== 'object') throw new Error('an event without data');
      if (++seen === count) break;
    }
    collectGarbage();
    const perEvent = (process.memoryUsage().heapUsed - before) / count;
    console.log(
      `recent-events tail: ${Math.round(perEvent).toLocaleString('en')} bytes of heap kept per event (${count.toLocaleString('en')} events of ≈ ${Math.round(jsonChars / count)} characters of data and metadata JSON, each read by a subscriber)`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

import type { CheckpointStore, Position } from '@mission/event-store';
import { CoalescedCheckpoints } from './coalesced-checkpoints.js';

const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function recordingStore(failures = 0) {
  const saved = new Map<string, Position>();
  const writes: string[] = [];
  let failing = failures;
  const store: CheckpointStore = {
    load: async (consumer) => saved.get(consumer),
    save: async (consumer, position) => {
      if (failing-- > 0) throw new Error('store went away');
      writes.push(`${consumer}@${position.commit}`);
      saved.set(consumer, position);
    },
  };
  return { store, saved, writes };
}

describe('CoalescedCheckpoints (process-manager trigger checkpoints of the children runners)', () => {
  it('writes only the newest position per consumer, once per interval, and loads the pending one', async () => {
    const inner = recordingStore();
    const checkpoints = new CoalescedCheckpoints(inner.store, 20);
    for (let n = 1; n <= 100; n++) await checkpoints.save('pm_a_triggers', at(n));
    await checkpoints.save('pm_b_triggers', at(7));
    expect(inner.writes).toEqual([]);
    expect(await checkpoints.load('pm_a_triggers')).toEqual(at(100));
    await sleep(60);
    expect(inner.writes.sort()).toEqual(['pm_a_triggers@100', 'pm_b_triggers@7']);
    expect(await checkpoints.load('pm_b_triggers')).toEqual(at(7));
    await checkpoints.close();
  });

  it('keeps a position whose write failed and writes it on the next flush; close writes what is pending', async () => {
    const inner = recordingStore(1);
    const errors: unknown[] = [];
    const checkpoints = new CoalescedCheckpoints(inner.store, 10_000, (error) => errors.push(error));
    await checkpoints.save('pm_a_triggers', at(3));
    await checkpoints.flush();
    expect(errors).toHaveLength(1);
    expect(inner.saved.size).toBe(0);
    await checkpoints.close();
    expect(inner.saved.get('pm_a_triggers')).toEqual(at(3));
  });
});

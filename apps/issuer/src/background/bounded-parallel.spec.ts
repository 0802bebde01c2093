import { forEachBounded } from './bounded-parallel.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('forEachBounded (the cascade’s bounded parallelism)', () => {
  it('runs every item with at most `parallelism` at once', async () => {
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    await forEachBounded(Array.from({ length: 50 }, (_, i) => i), 4, async (item) => {
      peak = Math.max(peak, ++running);
      await sleep(1);
      done.push(item);
      running--;
    });
    expect(peak).toBe(4);
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('starts nothing after the first failure, awaits the running ones, and throws that failure', async () => {
    const started: number[] = [];
    let finished = 0;
    const failure = new Error('item 2 failed');
    // Item 1 is held until item 2 has failed (a gate, not timers: a loaded machine can reorder timers).
    let releaseFirst: () => void = () => undefined;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    await expect(
      forEachBounded([1, 2, 3, 4, 5, 6], 2, async (item) => {
        started.push(item);
        if (item === 2) {
          await sleep(1);
          setImmediate(releaseFirst);
          throw failure;
        }
        await firstHeld;
        finished++;
      }),
    ).rejects.toBe(failure);
    expect(started).toEqual([1, 2]);
    expect(finished).toBe(1);
  });

  it('stops starting items once the signal is aborted', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    await expect(
      forEachBounded([1, 2, 3], 1, async (item) => {
        started.push(item);
        controller.abort(new Error('lease running out'));
      }, controller.signal),
    ).rejects.toThrow('lease running out');
    expect(started).toEqual([1]);
  });
});

import { SharedTurns } from './shared-turns.js';

/**
 * A counter of event-loop iterations: its callback re-queues itself with setImmediate, which Node runs in the NEXT
 * iteration, so it advances by exactly one per check phase.
 */
function iterationCounter(): { readonly now: () => number; readonly stop: () => void } {
  let iteration = 0;
  let handle: NodeJS.Immediate = setImmediate(function tick() {
    iteration += 1;
    handle = setImmediate(tick);
  });
  return { now: () => iteration, stop: () => clearImmediate(handle) };
}

describe('SharedTurns (issue 15: the cascade yields to I/O between slices)', () => {
  it('resumes one waiter per iteration of the event loop, in call order, however many wait at once', async () => {
    const turns = new SharedTurns();
    const counter = iterationCounter();
    const resumedAt: Array<[string, number]> = [];
    await Promise.all(['a', 'b', 'c', 'd'].map((name) => turns.next().then(() => resumedAt.push([name, counter.now()]))));
    counter.stop();
    expect(resumedAt.map(([name]) => name)).toEqual(['a', 'b', 'c', 'd']);
    const iterations = resumedAt.map(([, iteration]) => iteration);
    // Each resumption in its own iteration: the poll phase (HTTP requests) runs between any two of them.
    expect(new Set(iterations).size).toBe(4);
    expect(turns.pending).toBe(0);
  });

  it('the old way — each worker its own setImmediate — resumes them all in one iteration (what this replaces)', async () => {
    const counter = iterationCounter();
    const resumedAt: number[] = [];
    await Promise.all([1, 2, 3, 4].map(() => new Promise((resume) => setImmediate(resume)).then(() => resumedAt.push(counter.now()))));
    counter.stop();
    expect(new Set(resumedAt).size).toBe(1);
  });

  it('a waiter that arrives while others wait is resumed after them', async () => {
    const turns = new SharedTurns();
    const order: string[] = [];
    const first = turns.next().then(() => {
      order.push('first');
      return turns.next().then(() => order.push('first again'));
    });
    const second = turns.next().then(() => order.push('second'));
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second', 'first again']);
  });
});

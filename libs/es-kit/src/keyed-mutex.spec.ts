import { KeyedMutex } from './keyed-mutex.js';

/** A promise with its resolver, to hold work at a chosen point (deterministic interleavings). */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('KeyedMutex', () => {
  it('runs work for one key strictly one after another, in arrival order', async () => {
    const mutex = new KeyedMutex();
    const order: string[] = [];
    const first = gate();
    const a = mutex.run('k', async () => {
      order.push('a:start');
      await first.promise;
      order.push('a:end');
    });
    const b = mutex.run('k', async () => {
      order.push('b');
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(order).toEqual(['a:start']);
    first.open();
    await Promise.all([a, b]);
    expect(order).toEqual(['a:start', 'a:end', 'b']);
    expect(mutex.size).toBe(0);
  });

  it('does not hold other keys back, and a failure releases the key', async () => {
    const mutex = new KeyedMutex();
    const held = gate();
    const slow = mutex.run('x', () => held.promise);
    await expect(mutex.run('y', async () => 'y done')).resolves.toBe('y done');
    const failing = mutex.run('x', async () => {
      throw new Error('boom');
    });
    const after = mutex.run('x', async () => 'after');
    held.open();
    await slow;
    await expect(failing).rejects.toThrow('boom');
    await expect(after).resolves.toBe('after');
  });
});

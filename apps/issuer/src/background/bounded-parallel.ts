/**
 * Runs `task` for every item with at most `parallelism` running at once. After the first failure no
 * further item is started; the ones already running are awaited and the first failure is thrown.
 * An aborted `signal` stops starting new items the same way (its reason is thrown).
 */
export async function forEachBounded<T>(
  items: readonly T[],
  parallelism: number,
  task: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  if (!Number.isSafeInteger(parallelism) || parallelism < 1) throw new RangeError(`parallelism must be a positive integer, got ${parallelism}`);
  let next = 0;
  let failed = false;
  let failure: unknown;
  const fail = (error: unknown): void => {
    if (failed) return;
    failed = true;
    failure = error;
  };
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      if (signal?.aborted) {
        fail(signal.reason ?? new Error('aborted'));
        return;
      }
      const item = items[next++]!;
      try {
        await task(item);
      } catch (error) {
        fail(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelism, items.length) }, worker));
  if (failed) throw failure;
}

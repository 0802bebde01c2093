/**
 * Runs tasks one at a time in call order. A Mission's refresh token rotates on every use, so each use
 * (refresh, child creation) must see the token the previous one left behind.
 */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

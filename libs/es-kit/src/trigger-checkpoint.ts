import type { CheckpointStore, Position } from '@mission/event-store';

/**
 * The trigger checkpoint of a process manager, written newest-only: at most one save in flight, and
 * while it runs later positions replace each other, so a consumer catching up writes one checkpoint
 * per store commit instead of one per event (one per event kept a queue of thousands of saves behind a
 * busy consumer, and its stop waited for all of them: 25 s against a 10 s drain, issue 15).
 *
 * The rule of the runner still holds: a position is saved only after the work scheduled up to it is
 * committed (`before`). The newest position's `before` covers every earlier trigger's scheduling still
 * in flight, so skipping the older positions skips nothing.
 */
export class TriggerCheckpoint {
  private newest: { readonly position: Position; readonly before: readonly Promise<unknown>[] } | undefined;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly checkpoints: CheckpointStore,
    private readonly consumer: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  offer(position: Position, before: readonly Promise<unknown>[]): void {
    this.newest = { position, before };
    this.writing ??= this.write();
  }

  /** Resolves once the newest position offered so far is saved (or failed and was reported). */
  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async write(): Promise<void> {
    try {
      while (this.newest) {
        const { position, before } = this.newest;
        this.newest = undefined;
        await Promise.all(before);
        await this.checkpoints.save(this.consumer, position);
      }
    } catch (error) {
      this.newest = undefined;
      this.onError(error);
    } finally {
      this.writing = undefined;
    }
  }
}

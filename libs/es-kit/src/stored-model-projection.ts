import type { Position, RecordedEvent } from '@mission/event-store';
import type { Projection } from './projection-runner.js';

/** A read model that stores the position it has applied through with its rows (ADR 0086), e.g. a `FileReadModel`. */
export interface PositionedModel {
  readonly appliedThrough: { readonly position: Position } | undefined;
  commit(): void;
  clear(): void;
  close(): void;
}

/**
 * A projection over a model that stores its own position (ADR 0086–0088): the runner resumes from that position, each
 * checkpoint commits the model, and a reset empties it. A subclass names the events and says how each changes the model.
 */
export abstract class StoredModelProjection<M extends PositionedModel> implements Projection {
  abstract readonly name: string;
  abstract readonly categories: readonly string[];

  protected constructor(protected readonly model: M) {}

  abstract apply(event: RecordedEvent): void;

  reset(): void {
    this.model.clear();
  }

  /** Commits what was applied, with its position (the runner's checkpoints and stop). */
  persist(): void {
    this.model.commit();
  }

  /** Where a restart resumes: the position stored with the model, in the same transaction as its rows. */
  storedPosition(): Position | undefined {
    this.model.commit();
    return this.model.appliedThrough?.position;
  }

  close(): void {
    this.model.close();
  }
}

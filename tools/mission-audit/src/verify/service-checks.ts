import type { RecordedEvent } from '@mission/event-store';

/** What `verify` checks for one service beyond chains and seals: projections and spec invariants. */
export interface ServiceChecks {
  /** Categories whose streams must carry a hash chain (ADR 0005). */
  readonly chainedCategories: ReadonlySet<string>;
  /** Categories whose streams may be tombstoned by design (erasure, ADR 0019). */
  readonly erasableCategories: ReadonlySet<string>;
  /** Categories of replay records the service removes once they expired (ADR 0057). */
  readonly expiringCategories: ReadonlySet<string>;
  observe(event: RecordedEvent): void;
  finish(): void;
}

import type { JsonObject, RecordedEvent } from '@mission/event-store';
import type { RequestTrace } from './trace/request-trace.js';

export interface ScheduledWork {
  /** Unique per unit of work (include the trigger's id): planning the same key twice schedules it once. */
  readonly key: string;
  readonly dueAt: Date;
  readonly payload: JsonObject;
}

export interface WorkItem {
  readonly key: string;
  readonly payload: JsonObject;
  readonly attempt: number;
  /**
   * The request that caused the work (ADR 0050), for the contexts of its commands and its outgoing calls;
   * undefined for work no request caused — never whatever request last woke the loop (ADR 0082).
   */
  readonly trace?: RequestTrace | undefined;
}

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** How long a claim holds the work; `perform` is aborted a little before it runs out. */
  readonly leaseMs: number;
}

export interface ProcessManager {
  /** Lower-case letters, digits and `_`; names the work category `pm_<name>`. */
  readonly name: string;
  readonly triggers: readonly string[];
  /**
   * The event types `plan` acts on, when it acts on a few types only: the runner then subscribes to just
   * those (ADR 0055), so a category busy with other events (e.g. logged reads) costs it nothing.
   * Undefined: every event of the trigger categories is handed to `plan`.
   */
  readonly triggerTypes?: readonly string[];
  /** Pure: the work one event calls for (often none). */
  plan(event: RecordedEvent): ScheduledWork[];
  /** Does the work. Must be idempotent: after a crash it may run again for the same key. Throw to retry. */
  perform(work: WorkItem, signal: AbortSignal): Promise<void>;
  readonly retry?: Partial<RetryPolicy>;
}

export interface ProcessManagerRunnerOptions {
  readonly clock?: () => Date;
  readonly random?: () => number;
  /**
   * Who this replica is, stable across its restarts (default: the host name — a pod's name in Kubernetes).
   * Each start adds its own incarnation (`<replicaId>#<random>`), and a start takes back at once the work its
   * earlier incarnation had claimed (it died holding the lease) instead of waiting for the lease to run out
   * (ADR 0058). Replicas sharing one store must therefore have distinct ids.
   */
  readonly replicaId?: string;
  /** How often due work is looked for (default 200 ms). */
  readonly pollMs?: number;
  readonly concurrency?: number;
  readonly logger?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

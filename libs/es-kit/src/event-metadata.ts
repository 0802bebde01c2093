import type { JsonObject } from '@mission/event-store';

import type { Actor } from '@mission/decider';
import { traceMetadata, type RequestTrace } from './trace/request-trace.js';

export type { Actor } from '@mission/decider';

/** Where a command came from; every event it produces carries this (DESIGN 1). */
export interface CommandContext {
  readonly correlationId: string;
  /** Id of the event or request that caused this command. */
  readonly causationId: string;
  readonly actor: Actor;
  /** From the injected clock, never from inside a decider. */
  readonly now: Date;
  /**
   * The request (or process-manager work) this command runs for (ADR 0050); its ids go into every event's
   * metadata. Handed down explicitly from the controller or the work item (ADR 0082); unset: none.
   */
  readonly trace?: RequestTrace | undefined;
}

export interface EventMetadata extends JsonObject {
  correlation_id: string;
  causation_id: string;
  actor: { id: string; role: string };
  occurred_at: string;
  // ADR 0050: `request_id`, `trace_id`, `span_id`, `trace_flags` when the event was caused by a (traced) request.
}

export function metadataFor(context: CommandContext): EventMetadata {
  return {
    correlation_id: context.correlationId,
    causation_id: context.causationId,
    actor: { id: context.actor.id, role: context.actor.role },
    occurred_at: context.now.toISOString(),
    ...traceMetadata(context.trace),
  };
}

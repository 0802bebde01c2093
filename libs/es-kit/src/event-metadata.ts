import type { JsonObject } from '@mission/event-store';

import type { Actor } from '@mission/decider';

export type { Actor } from '@mission/decider';

/** Where a command came from; every event it produces carries this (DESIGN 1). */
export interface CommandContext {
  readonly correlationId: string;
  /** Id of the event or request that caused this command. */
  readonly causationId: string;
  readonly actor: Actor;
  /** From the injected clock, never from inside a decider. */
  readonly now: Date;
}

export interface EventMetadata extends JsonObject {
  correlation_id: string;
  causation_id: string;
  actor: { id: string; role: string };
  occurred_at: string;
}

export function metadataFor(context: CommandContext): EventMetadata {
  return {
    correlation_id: context.correlationId,
    causation_id: context.causationId,
    actor: { id: context.actor.id, role: context.actor.role },
    occurred_at: context.now.toISOString(),
  };
}

import { randomBytes } from 'node:crypto';
import type { RecordedEvent } from '@mission/event-store';
import type { CommandContext } from './event-metadata.js';
import type { WorkState } from './work-item.decider.js';

/** When open work becomes due (pending) or claimable again (lease ran out); never for finished work. */
export function dueTime(state: WorkState): number {
  if (state.status === 'pending') return state.dueAt.getTime();
  if (state.status === 'claimed') return state.leaseUntil.getTime();
  return Number.POSITIVE_INFINITY;
}

/** The context of a process manager's own commands: caused by its trigger event when there is one. */
export function processManagerContext(name: string, now: Date, trigger?: RecordedEvent): CommandContext {
  return {
    correlationId: typeof trigger?.metadata['correlation_id'] === 'string' ? trigger.metadata['correlation_id'] : randomBytes(16).toString('hex'),
    causationId: trigger?.id ?? `pm:${name}`,
    actor: { id: `process-manager:${name}`, role: 'system' },
    now,
  };
}

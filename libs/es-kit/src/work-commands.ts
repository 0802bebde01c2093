import type { EventStore, JsonObject } from '@mission/event-store';
import type { CommandContext } from './event-metadata.js';
import { handleCommand } from './handle-command.js';
import type { ScheduledWork } from './process-manager.js';
import { traceFromMetadata, type RequestTrace } from './trace/request-trace.js';
import { WorkClaimLostError, workItemDecider } from './work-item.decider.js';

export type WorkCommand = Parameters<typeof workItemDecider.decide>[0];

/** `WorkScheduled` on the work item's stream; idempotent (a replayed trigger finds the stream already scheduled). */
export async function scheduleWork(store: EventStore, stream: string, work: ScheduledWork, context: CommandContext, trigger: JsonObject | null): Promise<void> {
  await handleCommand(store, stream, workItemDecider, { type: 'ScheduleWork', key: work.key, dueAt: work.dueAt, payload: work.payload, trigger }, context);
}

/**
 * Records an attempt's result on the work item. False when the claim was lost meanwhile (the lease ran out
 * and another replica claimed the work): that replica retries, nothing is recorded here.
 */
export async function recordWorkResult(store: EventStore, stream: string, command: WorkCommand, context: CommandContext): Promise<boolean> {
  try {
    await handleCommand(store, stream, workItemDecider, command, context);
    return true;
  } catch (error) {
    if (error instanceof WorkClaimLostError) return false;
    throw error;
  }
}

/**
 * The request trace a work item was scheduled under (ADR 0050): on its `WorkScheduled`, the first event of its stream
 * (the decider schedules a stream once), read when an attempt starts rather than kept in the index of open work for
 * every item (ADR 0089).
 */
export async function scheduledTrace(store: EventStore, stream: string): Promise<RequestTrace | undefined> {
  for await (const event of store.readStream(stream, { maxCount: 1 })) {
    if (event.type === 'WorkScheduled') return traceFromMetadata(event.metadata);
  }
  return undefined;
}

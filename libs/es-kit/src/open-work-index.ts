import type { RecordedEvent } from '@mission/event-store';
import { traceFromMetadata, type RequestTrace } from './trace/request-trace.js';
import { workItemDecider, type WorkEvent, type WorkState } from './work-item.decider.js';

/**
 * A process manager's index of open work as this replica sees it, folded from the `pm_<name>` category:
 * each open item's state, and the request trace it was scheduled under (ADR 0050: its attempts run in it).
 */
export class OpenWorkIndex {
  private readonly open = new Map<string, WorkState>();
  private readonly traces = new Map<string, RequestTrace>();

  /** Folds a work event; the item's state while it is open, undefined once it is completed or abandoned. */
  apply(event: RecordedEvent): WorkState | undefined {
    const state = workItemDecider.evolve(this.open.get(event.streamName) ?? workItemDecider.initialState, event as unknown as WorkEvent);
    if (state.status === 'completed' || state.status === 'abandoned') {
      this.open.delete(event.streamName);
      this.traces.delete(event.streamName);
      return undefined;
    }
    if (event.type === 'WorkScheduled') {
      const trace = traceFromMetadata(event.metadata);
      if (trace !== undefined) this.traces.set(event.streamName, trace);
    }
    this.open.set(event.streamName, state);
    return state;
  }

  get states(): ReadonlyMap<string, WorkState> {
    return this.open;
  }

  traceOf(stream: string): RequestTrace | undefined {
    return this.traces.get(stream);
  }
}

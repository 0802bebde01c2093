import type { RecordedEvent } from '@mission/event-store';
import { workItemDecider, type WorkEvent, type WorkState } from './work-item.decider.js';
import { dueTime } from './work-timing.js';

/**
 * What the index keeps of one open work item (ADR 0089): when it is due, and who holds it. Key, payload and the
 * request trace stay in the store: an attempt folds the item's stream when it claims it and reads the trace there.
 * Before, the index held each item's whole state and trace: ≈ 800 bytes an item, so a Person Server with 100,000
 * missions that expire (one `ps_mission_expiry` item each) ran out of a 128 MiB heap at its first start.
 */
export interface OpenWorkItem {
  readonly status: 'pending' | 'claimed';
  /** Due (pending) or the end of its lease (claimed), in ms since the epoch: `dueTime` of its state. */
  readonly at: number;
  readonly attempts: number;
  /** The claiming replica's incarnation (claimed only). */
  readonly replica?: string;
}

const NO_PAYLOAD = Object.freeze({});

/**
 * A process manager's index of open work as this replica sees it, folded from the `pm_<name>` category with the work
 * item decider's own `evolve`, over a state rebuilt from the compact item (the fields `evolve` carries but never reads,
 * key and payload, left empty).
 */
export class OpenWorkIndex {
  private readonly open = new Map<string, OpenWorkItem>();

  /** Folds a work event; the item while it is open, undefined once it is completed or abandoned. */
  apply(event: RecordedEvent): OpenWorkItem | undefined {
    const previous = this.open.get(event.streamName);
    const state = workItemDecider.evolve(previous === undefined ? workItemDecider.initialState : stateOf(previous), event as unknown as WorkEvent);
    if (state.status !== 'pending' && state.status !== 'claimed') {
      this.open.delete(event.streamName);
      return undefined;
    }
    const item: OpenWorkItem =
      state.status === 'pending'
        ? { status: 'pending', at: dueTime(state), attempts: state.attempts }
        : { status: 'claimed', at: dueTime(state), attempts: state.attempts, replica: state.replica };
    this.open.set(event.streamName, item);
    return item;
  }

  get items(): ReadonlyMap<string, OpenWorkItem> {
    return this.open;
  }
}

function stateOf(item: OpenWorkItem): WorkState {
  return item.status === 'pending'
    ? { status: 'pending', key: '', payload: NO_PAYLOAD, dueAt: new Date(item.at), attempts: item.attempts }
    : { status: 'claimed', key: '', payload: NO_PAYLOAD, attempts: item.attempts, replica: item.replica!, leaseUntil: new Date(item.at) };
}

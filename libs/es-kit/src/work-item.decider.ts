import type { Decider, DomainEvent } from '@mission/decider';
import { unknownCommand } from '@mission/decider';
import type { JsonObject } from '@mission/event-store';

/**
 * One unit of durable, scheduled work of a process manager ("do X at time T"), as a decider over its
 * own stream. Claims are appended with the stream's expected revision, so among replicas exactly one
 * wins each attempt; a claim carries a lease so that work claimed by a crashed replica is taken over.
 */
export type WorkEvent =
  | DomainEvent<'WorkScheduled', { key: string; due_at: string; payload: JsonObject; trigger: JsonObject | null }>
  | DomainEvent<'WorkClaimed', { attempt: number; replica: string; lease_until: string }>
  | DomainEvent<'WorkAttemptFailed', { attempt: number; error: string; next_attempt_at: string }>
  | DomainEvent<'WorkCompleted', { attempt: number }>
  | DomainEvent<'WorkAbandoned', { attempt: number; error: string }>;

export interface ScheduleWork { type: 'ScheduleWork'; key: string; dueAt: Date; payload: JsonObject; trigger: JsonObject | null }
/** `replica` is `<replica id>#<incarnation>` (incarnationOf): a new incarnation of the holder may claim at once. */
export interface ClaimWork { type: 'ClaimWork'; now: Date; replica: string; leaseMs: number }
export interface FailWorkAttempt { type: 'FailWorkAttempt'; now: Date; replica: string; attempt: number; error: string; nextAttemptAt: Date; maxAttempts: number }
export interface CompleteWork { type: 'CompleteWork'; replica: string; attempt: number }

export type WorkCommand = ScheduleWork | ClaimWork | FailWorkAttempt | CompleteWork;

export type WorkState =
  | { status: 'none' }
  | { status: 'pending'; key: string; payload: JsonObject; dueAt: Date; attempts: number }
  | { status: 'claimed'; key: string; payload: JsonObject; attempts: number; replica: string; leaseUntil: Date }
  | { status: 'completed' | 'abandoned'; key: string; attempts: number };

export class WorkNotClaimableError extends Error {}
export class WorkClaimLostError extends Error {}

export const workItemDecider: Decider<WorkCommand, WorkEvent, WorkState> = {
  initialState: { status: 'none' },

  decide(command, state) {
    switch (command.type) {
      case 'ScheduleWork':
        // Re-planning the same key (a replayed trigger) is a no-op.
        if (state.status !== 'none') return [];
        return [{ type: 'WorkScheduled', data: { key: command.key, due_at: command.dueAt.toISOString(), payload: command.payload, trigger: command.trigger } }];
      case 'ClaimWork': {
        const claimable =
          (state.status === 'pending' && state.dueAt <= command.now) ||
          (state.status === 'claimed' && (state.leaseUntil <= command.now || isEarlierIncarnation(state.replica, command.replica)));
        if (!claimable) throw new WorkNotClaimableError(`work is ${state.status}`);
        const leaseUntil = new Date(command.now.getTime() + command.leaseMs).toISOString();
        return [{ type: 'WorkClaimed', data: { attempt: state.attempts + 1, replica: command.replica, lease_until: leaseUntil } }];
      }
      case 'FailWorkAttempt':
        assertHeldBy(state, command.replica, command.attempt);
        if (command.attempt >= command.maxAttempts) return [{ type: 'WorkAbandoned', data: { attempt: command.attempt, error: command.error } }];
        return [{ type: 'WorkAttemptFailed', data: { attempt: command.attempt, error: command.error, next_attempt_at: command.nextAttemptAt.toISOString() } }];
      case 'CompleteWork':
        assertHeldBy(state, command.replica, command.attempt);
        return [{ type: 'WorkCompleted', data: { attempt: command.attempt } }];
      default:
        return unknownCommand(command, () => new Error('unknown work command'));
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'WorkScheduled':
        return { status: 'pending', key: event.data.key, payload: event.data.payload, dueAt: new Date(event.data.due_at), attempts: 0 };
      case 'WorkClaimed':
        if (state.status !== 'pending' && state.status !== 'claimed') return state;
        return { status: 'claimed', key: state.key, payload: state.payload, attempts: event.data.attempt, replica: event.data.replica, leaseUntil: new Date(event.data.lease_until) };
      case 'WorkAttemptFailed':
        if (state.status !== 'claimed') return state;
        return { status: 'pending', key: state.key, payload: state.payload, dueAt: new Date(event.data.next_attempt_at), attempts: event.data.attempt };
      case 'WorkCompleted':
      case 'WorkAbandoned':
        return state.status === 'none' ? state : { status: event.type === 'WorkCompleted' ? 'completed' : 'abandoned', key: state.key, attempts: event.data.attempt };
    }
  },
};

/** The claimant name of one start of a replica: `<replica id>#<incarnation>`. */
export function incarnationOf(replicaId: string, incarnation: string): string {
  return `${replicaId}#${incarnation}`;
}

/**
 * The holder is another incarnation of the claimant's replica (same id before `#`, another start): that start
 * is over — a replica runs one incarnation at a time — so its claim is dead even though its lease has not run
 * out (ADR 0058). Claims without `#` (written before incarnations) are never taken this way.
 */
export function isEarlierIncarnation(holder: string, claimant: string): boolean {
  const at = claimant.lastIndexOf('#');
  return at > 0 && holder !== claimant && holder.lastIndexOf('#') === at && holder.slice(0, at) === claimant.slice(0, at);
}

function assertHeldBy(state: WorkState, replica: string, attempt: number): void {
  // A replica whose lease ran out may have been overtaken; its late result must not be recorded.
  if (state.status !== 'claimed' || state.replica !== replica || state.attempts !== attempt) {
    throw new WorkClaimLostError(`claim ${replica}#${attempt} no longer holds the work (${state.status})`);
  }
}

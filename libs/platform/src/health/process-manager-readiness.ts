import type { ProcessManagerRunner } from '@mission/es-kit';
import type { ReadinessCheck } from './readiness.js';

/**
 * Trigger events a process manager may have left to plan while its replica still counts as ready: about one
 * second of work at the ≥ 1,000 events/s a consumer keeps up with (issue 15). Above it — after a start on a
 * long backlog, or when the consumer falls behind under load — /readyz says not ready, so the replica gets no
 * traffic (and no new triggers) until it has caught up, instead of answering while its follow-up work (token
 * revocation, expiry, body deletion) lags.
 */
export const PROCESS_MANAGER_BACKLOG_BOUND = 1_000;

/**
 * Not ready when the runner's subscription loop died (it does no follow-up work any more; take the replica
 * out of rotation) or while more than `backlogBound` trigger events wait to be planned.
 */
export function processManagerReadinessCheck(
  runner: Pick<ProcessManagerRunner, 'name' | 'failure' | 'backlog'>,
  backlogBound = PROCESS_MANAGER_BACKLOG_BOUND,
): ReadinessCheck {
  return {
    name: `process-manager:${runner.name}`,
    check: async () => {
      if (runner.failure !== undefined) return { ok: false, detail: `process manager ${runner.name} stopped` };
      const backlog = await runner.backlog(backlogBound);
      if (backlog > backlogBound) return { ok: false, detail: `process manager ${runner.name} is more than ${backlogBound} trigger events behind` };
      return { ok: true };
    },
  };
}

import type { ProcessManagerRunner } from '@mission/es-kit';
import type { ReadinessCheck } from './readiness.js';

/** A process manager whose subscription loop died does no follow-up work; take the replica out of rotation. */
export function processManagerReadinessCheck(runner: Pick<ProcessManagerRunner, 'name' | 'failure'>): ReadinessCheck {
  return {
    name: `process-manager:${runner.name}`,
    check: async () => (runner.failure === undefined ? { ok: true } : { ok: false, detail: `process manager ${runner.name} stopped` }),
  };
}

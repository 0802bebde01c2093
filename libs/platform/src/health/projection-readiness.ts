import type { ProjectionRunner } from '@mission/es-kit';
import type { ReadinessCheck } from './readiness.js';

/**
 * /readyz waits for a projection to have applied everything that existed when the probe ran, so a
 * fresh replica does not answer reads from a half-built view; a projection that stopped on an event it
 * could not apply keeps the replica out of rotation.
 */
export function projectionReadinessCheck(runner: Pick<ProjectionRunner, 'name' | 'isCaughtUp'>): ReadinessCheck {
  return {
    name: `projection:${runner.name}`,
    check: async () => {
      try {
        return (await runner.isCaughtUp()) ? { ok: true } : { ok: false, detail: `projection ${runner.name} is catching up` };
      } catch {
        return { ok: false, detail: `projection ${runner.name} stopped on an event it could not apply` };
      }
    },
  };
}

import type { ReadinessRegistry, ReadinessReport } from '../health/readiness.js';

/** The answers of the management paths, shared by the public-port controllers and the management server. */
export function liveness(): { status: 'ok' } {
  return { status: 'ok' };
}

export async function readinessAnswer(
  readiness: ReadinessRegistry,
): Promise<{ status: 200 | 503; body: { status: 'ready' | 'not_ready'; checks: ReadinessReport['checks'] } }> {
  const report = await readiness.evaluate();
  return { status: report.ready ? 200 : 503, body: { status: report.ready ? 'ready' : 'not_ready', checks: report.checks } };
}

/** The paths that belong to operators: served on MANAGEMENT_PORT when it is set, on the public port otherwise. */
export const MANAGEMENT_PATHS = ['/metrics', '/healthz', '/readyz'] as const;

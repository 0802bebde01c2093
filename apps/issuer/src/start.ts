import { startService, type RunningService } from '@mission/platform';
import type { Tracing } from '@mission/platform/tracing';
import { issuerService } from './issuer-service.js';

/** Loaded by main.ts only after tracing started (ADR 0050): everything the service imports is loaded from here on. */
export function start(tracing: Tracing | undefined): Promise<RunningService> {
  return startService(issuerService, { tracing });
}

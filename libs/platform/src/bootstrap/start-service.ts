import { bootstrapService, type RunningService } from './bootstrap-service.js';
import { describeStartupFailure } from './describe-startup-failure.js';
import type { ServiceDefinition } from './service-definition.js';
import type { Tracing } from '../tracing/start-tracing.js';

/**
 * A Ctrl-C in a terminal reaches the service twice (from the terminal and forwarded by `npm run`):
 * a repeat this soon after the first signal is that echo, not an operator insisting.
 */
const DUPLICATE_SIGNAL_WINDOW_MS = 1000;

/**
 * Entry point for an app's `main.ts`: starts the service, or prints one clear line to stderr and exits 1;
 * then turns SIGTERM/SIGINT into a graceful stop and exit 0. A later second signal during the stop exits at once.
 */
export async function startService<Config>(definition: ServiceDefinition<Config>, options: { readonly tracing?: Tracing | undefined } = {}): Promise<RunningService> {
  let running: RunningService | undefined;
  let stopRequestedDuringStartup: NodeJS.Signals | undefined;
  let firstSignalAt: number | undefined;

  // ADR 0050: started by main.ts before the service's modules load (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set);
  // flushed here after the graceful stop.
  const { tracing } = options;

  const stopAndExit = (service: RunningService, signal: NodeJS.Signals): void => {
    service.stop(signal).then(() => tracing?.shutdown()).then(
      () => process.exit(0),
      (error: unknown) => {
        service.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };

  // Installed before start-up: a supervisor may signal as soon as it sees `listening on`, and Node's
  // default action would kill the process without a graceful stop.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < DUPLICATE_SIGNAL_WINDOW_MS) return;
      running?.logger.warn({ signal }, 'second signal during shutdown: exiting now');
      process.exit(1);
    }
    firstSignalAt = Date.now();
    if (running) stopAndExit(running, signal);
    else stopRequestedDuringStartup = signal;
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  try {
    running = await bootstrapService(definition);
  } catch (error) {
    process.stderr.write(`${describeStartupFailure(error)}\n`);
    process.exit(1);
  }
  const { logger } = running;

  // Anything that escapes every handler leaves the process in an unknown state: log it as JSON and exit
  // so the supervisor restarts a clean one.
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception: exiting');
    process.exit(1);
  });
  process.on('unhandledRejection', (reason) => {
    logger.fatal({ err: reason }, 'unhandled promise rejection: exiting');
    process.exit(1);
  });

  if (stopRequestedDuringStartup) stopAndExit(running, stopRequestedDuringStartup);
  return running;
}

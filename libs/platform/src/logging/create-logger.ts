import { pino, stdSerializers, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config/service-settings.js';

export type { Logger } from 'pino';

export interface CreateLoggerOptions {
  readonly serviceName: string;
  readonly level: LogLevel;
  /** Defaults to standard output, written synchronously so the last lines before an exit are never lost. */
  readonly destination?: DestinationStream;
}

/** One JSON object per line: `level` as a word, ISO time, the service name on every line. */
export function createLogger(options: CreateLoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: options.serviceName },
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: stdSerializers.err },
    },
    options.destination ?? pino.destination({ fd: 1, sync: true }),
  );
}

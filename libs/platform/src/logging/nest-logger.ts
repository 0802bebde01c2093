import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

/**
 * Nest's start-up chatter (modules loaded, each route mapped, "application started") is useful when
 * debugging and noise otherwise: it goes to `debug`, so the default `info` start-up shows the one
 * `listening on` line plus anything that needs attention.
 */
const START_UP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** Routes Nest's own logging into the service's pino logger, so every line the process writes is JSON. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    const { context } = splitParams(params);
    if (context && START_UP_CONTEXTS.has(context)) this.write('debug', message, context);
    else this.write('info', message, context);
  }

  error(message: unknown, ...params: unknown[]): void {
    const { context, rest } = splitParams(params);
    // Nest passes (message, stack, context); an Error may also come as the message itself.
    const stack = typeof rest[0] === 'string' ? rest[0] : undefined;
    if (message instanceof Error) {
      this.logger.error({ context, err: message }, message.message);
      return;
    }
    this.logger.error({ context, ...(stack ? { stack } : {}) }, stringify(message));
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, splitParams(params).context);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, splitParams(params).context);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, splitParams(params).context);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, splitParams(params).context);
  }

  private write(level: 'fatal' | 'warn' | 'info' | 'debug' | 'trace', message: unknown, context: string | undefined): void {
    if (typeof message === 'object' && message !== null && !(message instanceof Error)) {
      this.logger[level]({ context, ...(message as object) }, '');
      return;
    }
    this.logger[level]({ context }, stringify(message));
  }
}

/** Nest appends the context (a class name) as the last string parameter. */
function splitParams(params: unknown[]): { context: string | undefined; rest: unknown[] } {
  const last = params.at(-1);
  const looksLikeStack = typeof last === 'string' && /\n\s+at /.test(last);
  if (params.length > 0 && typeof last === 'string' && !looksLikeStack) return { context: last, rest: params.slice(0, -1) };
  return { context: undefined, rest: params };
}

function stringify(message: unknown): string {
  if (message instanceof Error) return message.message;
  return typeof message === 'string' ? message : String(message);
}

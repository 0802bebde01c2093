import { EventStoreStartupError, EventStoreUnavailableError } from '@mission/event-store';
import { ConfigError } from '../config/config-error.js';

/**
 * The one line an operator reads when the service refuses to start. Known failures get a message
 * that says what to fix; anything else is a bug and keeps its stack.
 */
export function describeStartupFailure(error: unknown): string {
  if (error instanceof ConfigError) return `config error: ${error.message}`;
  if (error instanceof EventStoreStartupError || error instanceof EventStoreUnavailableError) return `startup error: event store: ${error.message}`;
  const { code, syscall, port } = (error ?? {}) as NodeJS.ErrnoException & { port?: number };
  if (syscall === 'listen' && code === 'EADDRINUSE') return `startup error: PORT ${port} is already in use by another process`;
  if (syscall === 'listen' && code === 'EACCES') return `startup error: not allowed to listen on PORT ${port}`;
  if (error instanceof Error) return `startup error: ${error.message}\n${error.stack ?? ''}`;
  return `startup error: ${String(error)}`;
}

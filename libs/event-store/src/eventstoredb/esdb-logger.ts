/** The slice of a pino-style logger the adapter needs: structured fields first, then the message. */
export interface EventStoreDbLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Without a logger, re-subscriptions and failures still reach stderr; routine messages stay quiet. */
export const consoleLogger: EventStoreDbLogger = {
  info: () => undefined,
  warn: (obj, msg) => console.warn(msg, obj),
  error: (obj, msg) => console.error(msg, obj),
};

/** `esdb://user:password@host…` → `esdb://***@host…`: connection strings may carry credentials. */
export function redactConnectionString(connectionString: string): string {
  return connectionString.replace(/^([a-z+]+:\/\/)[^@/]*@/i, '$1***@');
}

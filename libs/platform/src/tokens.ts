/**
 * Injection tokens for values that have no class of their own. Inject them with `@Inject(TOKEN)`;
 * the matching types are `ServiceSettings`, the app's validated config type, pino's `Logger` and
 * `EventStore` from `@mission/event-store`.
 */
export const SERVICE_SETTINGS = Symbol('ServiceSettings');
/** The validated CONFIG_FILE content, typed by the app that defined its schema. */
export const SERVICE_CONFIG = Symbol('ServiceConfig');
export const LOGGER = Symbol('Logger');
export const EVENT_STORE = Symbol('EventStore');
/** The service's `AppendObserver` (domain metrics counted from committed appends, ADR 0046). */
export const APPEND_OBSERVER = Symbol('AppendObserver');

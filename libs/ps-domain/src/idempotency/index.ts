export * from './idempotency-key.js';
export * from './idempotency.commands.js';
export * from './idempotency.events.js';
export * from './idempotency.state.js';
export * from './idempotency.decider.js';

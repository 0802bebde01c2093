export * from './decider.js';
export { given } from './given-when-then.js';
export * from './actor.js';
export type { Clock } from './clock.js';
export * from './rfc3339.js';

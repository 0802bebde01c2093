export * from './decider.js';
export { given } from './given-when-then.js';

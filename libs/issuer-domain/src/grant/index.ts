export * from './grant-ids.js';
export * from './authorization-request.js';
export * from './authorization-request.decider.js';
export * from './grant.js';
export * from './grant.errors.js';
export * from './grant.decider.js';

export * from './child-attachment.errors.js';
export * from './fan-out.js';
export * from './child-actor.js';
export * from './child-evidence.js';
export * from './child-creation-denied.error.js';
export * from './child-creation-policy.js';
export * from './child-creation-checks.js';
export * from './lineage-state.js';

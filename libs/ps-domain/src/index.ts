/** The Person Server's pure domain (spec mission-management, DESIGN 3): deciders and rules, no IO. */
export const PS_DOMAIN = 'ps-domain';

export * from './errors/index.js';
export * from './shared/index.js';
export * from './blob/index.js';
export * from './proposal/index.js';
export * from './mission/index.js';
export * from './idempotency/index.js';
export * from './tokens/index.js';

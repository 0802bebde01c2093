export * from './mission-intent.js';
export * from './invalid-mission-intent.error.js';
export * from './parse-mission-intent.js';

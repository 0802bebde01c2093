export * from './shared/index.js';
export * from './authority-set/index.js';
export * from './mission-intent/index.js';
export * from './mission/index.js';
export * from './grant/index.js';
export * from './subset/index.js';
export * from './children/index.js';

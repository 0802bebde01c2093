export * from './jti-registry.js';
export * from './event-store-jti-registry.js';
export * from './in-memory-jti-registry.js';
export * from './jti-replay-records.js';

export * from './authority-set.js';
export * from './authority-hash.js';
export * from './invalid-authorization-details.error.js';
export * from './parse-authorization-details.js';

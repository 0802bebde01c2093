export * from './ps-domain.error.js';
export * from './management.errors.js';

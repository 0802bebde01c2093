export * from './protocol-error.js';

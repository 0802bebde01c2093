export * from './child-attachment.errors.js';
export * from './fan-out.js';

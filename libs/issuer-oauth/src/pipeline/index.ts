export * from './rule.js';
export * from './clock.js';
export * from './compact-jwt.js';
export * from './form.js';

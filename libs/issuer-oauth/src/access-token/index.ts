export * from './claims.js';
export * from './issue-access-token.js';
export * from './verify-access-token.js';
export type { AccessTokenVerificationOptions } from './context.js';

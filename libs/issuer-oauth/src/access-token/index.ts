export * from './claims.js';
export * from './issue-access-token.js';
export * from './verify-access-token.js';
export type { AccessTokenVerificationOptions } from './context.js';
export { VERIFIED_ACCESS_TOKENS_MAX, VerifiedAccessTokens } from './verified-access-tokens.js';

export * from './verify-pkce.js';
export { s256CodeChallenge } from './rules/s256-matches.js';
export { CODE_VERIFIER, S256_CODE_CHALLENGE } from './context.js';

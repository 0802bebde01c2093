export * from './verify-dpop-proof.js';
export * from './assert-dpop-binding.js';
export * from './dpop-nonces.js';
export * from './normalize-htu.js';
export { accessTokenHash } from './rules/access-token-hash.js';
export type { DpopRequest, DpopVerificationDeps, VerifiedDpopProof } from './context.js';

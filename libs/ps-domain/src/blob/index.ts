export * from './mission-s256.js';
export * from './mission-proposal.js';
export * from './mission-blob.js';

export * from './errors/index.js';
export * from './pipeline/index.js';
export * from './replay/index.js';
export * from './client-authentication/index.js';
export * from './dpop/index.js';
export * from './pkce/index.js';
export * from './access-token/index.js';

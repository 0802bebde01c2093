export * from './authenticate-client.js';
export * from './client-registry.js';
export { CLIENT_ASSERTION_TYPE_JWT_BEARER, type AuthenticatedClient, type ClientAuthenticationDeps, type ClientAuthenticationHeaders } from './context.js';

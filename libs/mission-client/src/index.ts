export { createPkcePair } from './pkce.js';
export { clientAssertion, CLIENT_ASSERTION_TYPE, type ClientKey, type PrivateJwk } from './client-assertion.js';
export { DpopKey } from './dpop.js';

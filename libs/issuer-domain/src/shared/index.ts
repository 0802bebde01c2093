export * from './actor.js';
export * from './errors.js';
export type { JsonObject, JsonPrimitive, JsonValue } from './json.js';
export { isSha256Base64url, sha256Base64url } from './sha256.js';
export { parseRfc3339 } from '@mission/decider';
export { absoluteUriProblem } from './uri.js';

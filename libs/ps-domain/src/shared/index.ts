export type { Actor } from './actor.js';
export type { JsonObject, JsonPrimitive, JsonValue } from './json.js';
export { canonicalJson, isJsonObject } from './json.js';
export { isSha256Base64url, sha256Base64url } from './sha256.js';
export { parseRfc3339 } from '@mission/decider';

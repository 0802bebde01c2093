/** Three base64url segments: a JWS in compact serialization (RFC 7515 §7.1); a JWE (five) is not one. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Upper bound on any JWT we parse: far above a real assertion or proof, far below the body limit. */
export const MAX_JWT_LENGTH = 8192;

export function isCompactJws(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_JWT_LENGTH && COMPACT_JWS.test(value);
}

/** A JSON object (not an array, not null): what a JOSE header or a JWT claims set must be. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7519 §2 NumericDate: a JSON number, finite. */
export function isNumericDate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

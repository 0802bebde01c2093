import type { HttpHeaders } from '@mission/http-signatures';
import { type SignatureFailureReason, SignatureVerificationProblem } from '../errors/signature-verification.problem.js';

/** The one signature label the Person Server reads (DESIGN 3.2). */
export const SIGNATURE_LABEL = 'sig';

/** Refuses the request: 401 with `Signature-Error` naming `reason` (spec 5, DESIGN 3.2). */
export function fail(reason: SignatureFailureReason, cause?: unknown, requiredInput?: readonly string[]): never {
  throw new SignatureVerificationProblem(reason, {
    ...(cause !== undefined ? { cause } : {}),
    ...(requiredInput !== undefined ? { requiredInput } : {}),
  });
}

/** Every line of the header `name` (lower case), in order; `undefined` when the request has none. */
export function headerLines(headers: HttpHeaders, name: string): string[] | undefined {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    if (typeof value === 'string') lines.push(value);
    else lines.push(...value);
  }
  return lines.length > 0 ? lines : undefined;
}

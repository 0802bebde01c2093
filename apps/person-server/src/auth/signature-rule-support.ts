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

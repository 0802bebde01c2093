import { ChildCreationDeniedError, FanOutExceededError, ParentNotActiveError, type ChildDenialReason } from '@mission/issuer-domain';
import { AccessDeniedError, InvalidGrantError, InvalidRequestError, ProtocolError, withMissionDenialReason } from '@mission/issuer-oauth';

/** A denial of spec 4.1 steps 3–10 with its spec 7 reason, or `undefined` for anything else. */
export function childDenialOf(error: unknown): { readonly reason: ChildDenialReason; readonly message: string } | undefined {
  if (error instanceof ChildCreationDeniedError) return { reason: error.missionDenialReason, message: error.message };
  // Step 10: the attachment decided over the parent stream refused (parent no longer active, slot taken meanwhile).
  if (error instanceof ParentNotActiveError) return { reason: 'parent_not_active', message: error.message };
  if (error instanceof FanOutExceededError) return { reason: 'fanout_exceeded', message: error.message };
  return undefined;
}

/** Spec 7: the OAuth `error` of the reason's row, with `mission_denial_reason` beside it. */
export function childDenialProtocolError(reason: ChildDenialReason, message: string): ProtocolError {
  switch (reason) {
    case 'parent_not_active':
    case 'parent_mismatch':
      return new InvalidGrantError(message, { missionDenialReason: reason });
    case 'policy_denied':
      return new AccessDeniedError(message, { missionDenialReason: reason });
    default:
      return new InvalidRequestError(message, withMissionDenialReason(reason));
  }
}

/** RFC 6749 §4.1.2.1 `temporarily_unavailable`: the parent stream stayed contended through every retry. */
export class TemporarilyUnavailableError extends ProtocolError {
  constructor(description: string, options: { readonly cause?: unknown } = {}) {
    super(503, 'temporarily_unavailable', description, { headers: { 'Retry-After': '1' }, ...options });
  }
}

import { InvalidRequestError } from '../errors/management.errors.js';
import { PsDomainError } from '../errors/ps-domain.error.js';
import { assertRequestId, isPurpose, MAX_PURPOSE_LENGTH } from './termination-rules.js';

/**
 * Spec 3 rule 5, spec 8: the body of an active mission is never deleted — only a terminated
 * mission's (the deletion must not be a way around termination, and an active mission needs its
 * blob). The caller is an administrator of the mission's tenant, so saying so discloses nothing.
 */
export class MissionStillActiveError extends PsDomainError {
  constructor() {
    super('the mission is active; only the body of a terminated mission can be deleted');
  }
}

/** The members of a blob deletion (checked before any lookup): `request_id` ≥ 128 bits, a `purpose` (spec 5.5). */
export function checkBlobDeletionRequest(request: { readonly requestId: unknown; readonly purpose: unknown }): void {
  assertRequestId(request.requestId);
  if (!isPurpose(request.purpose)) {
    throw new InvalidRequestError(`purpose is required: non-blank text of at most ${MAX_PURPOSE_LENGTH} characters without control characters`);
  }
}

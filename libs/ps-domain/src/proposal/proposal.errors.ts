import { InvalidRequestError, ManagementError } from '../errors/management.errors.js';

/**
 * `404 not_found` for a pending id: the proposal is absent, or the caller is not the submitting agent
 * (polling) or not a person owning its agent (deciding). The answer is the same for all of them, like
 * spec 5.9; `auditDetail` is for the security audit log only.
 */
export class ProposalNotFoundError extends ManagementError {
  readonly code = 'not_found';
  readonly status = 404;

  constructor(readonly auditDetail: 'absent' | 'not_submitter' | 'not_owner' = 'absent') {
    super('pending mission proposal not found');
  }
}

/** A proposal takes exactly one decision: a second approve or decline is refused (`invalid_request`). */
export class ProposalAlreadyDecidedError extends InvalidRequestError {
  constructor() {
    super('the proposal has already been decided');
  }
}

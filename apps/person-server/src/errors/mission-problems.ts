import { WrongExpectedRevisionError } from '@mission/event-store';
import {
  IdempotencyConflictError as DomainIdempotencyConflict,
  InvalidMissionReferenceError as DomainInvalidReference,
  InvalidRequestError as DomainInvalidRequest,
  InvalidTerminationReasonError as DomainInvalidReason,
  ManagementError,
  MissionNotFoundError as DomainMissionNotFound,
  MissionTerminatedError as DomainMissionTerminated,
  ProposalNotFoundError,
} from '@mission/ps-domain';
import {
  IdempotencyConflictError,
  InvalidManagementRequestError,
  InvalidMissionReferenceError,
  InvalidTerminationReasonError,
  MissionNotFoundError,
  MissionTerminatedError,
  ProblemError,
  TemporarilyUnavailableError,
} from './problem-errors.js';

/**
 * DESIGN 3.1 proposal endpoints: `404 not_found` for a pending id that is unknown, or that the caller
 * may not see (not the proposing agent; not a person owning its agent). One fixed body for all.
 */
export class PendingProposalNotFoundError extends ProblemError {
  constructor() {
    super(404, 'not_found', 'pending mission proposal not found');
  }
}

/** DESIGN 3.1: proposing a mission is an agent's request; a Management Principal cannot make one. */
export class AgentRequiredError extends ProblemError {
  constructor() {
    super(403, 'access_denied', 'only an agent may propose a mission');
  }
}

/**
 * The one place where refusals of `@mission/ps-domain` become problem+json responses (spec 7). A
 * refusal that is not a domain error passes unchanged (the platform answers 500 for a bug); a
 * concurrency conflict that survived every retry becomes a 503 the client may retry.
 */
export function toProblem(error: unknown): unknown {
  if (error instanceof ProblemError) return error;
  if (error instanceof WrongExpectedRevisionError) return new TemporarilyUnavailableError('the mission is busy; retry', 1);
  if (!(error instanceof ManagementError)) return error;
  if (error instanceof ProposalNotFoundError) return new PendingProposalNotFoundError();
  // Spec 5.9: never the domain message — one fixed body whatever the cause.
  if (error instanceof DomainMissionNotFound) return new MissionNotFoundError();
  if (error instanceof DomainInvalidReference) return new InvalidMissionReferenceError();
  if (error instanceof DomainInvalidReason) return new InvalidTerminationReasonError();
  if (error instanceof DomainIdempotencyConflict) return new IdempotencyConflictError();
  if (error instanceof DomainMissionTerminated) return new MissionTerminatedError(error.terminationReason);
  if (error instanceof DomainInvalidRequest) return new InvalidManagementRequestError(error.message);
  return new InvalidManagementRequestError();
}

import { WrongExpectedRevisionError } from '@mission/event-store';
import {
  IdempotencyConflictError,
  InvalidMissionReferenceError,
  InvalidRequestError,
  InvalidTerminationReasonError,
  ManagementError,
  MissionNotFoundError,
  MissionStillActiveError,
  MissionTerminatedError,
  ProposalNotFoundError,
} from '@mission/ps-domain';
import { ProblemError } from './problem-error.js';
import {
  IdempotencyConflictProblem,
  InvalidMissionReferenceProblem,
  InvalidRequestProblem,
  InvalidTerminationReasonProblem,
  MissionActiveProblem,
  MissionNotFoundProblem,
  MissionTerminatedProblem,
  NotFoundProblem,
  TemporarilyUnavailableProblem,
} from './problems.js';

type Refusal = abstract new (...args: never[]) => Error;

/**
 * The one table from the refusals below the HTTP layer — `@mission/ps-domain` and the event store — to
 * the problem+json each is answered with (spec 7). First match wins, so a subclass comes before its base.
 */
const PROBLEM_TABLE: readonly (readonly [Refusal, (error: never) => ProblemError])[] = [
  // A concurrency conflict that survived every retry: a 503 the client may retry.
  [WrongExpectedRevisionError, () => new TemporarilyUnavailableProblem('the mission is busy; retry', 1)],
  [ProposalNotFoundError, () => new NotFoundProblem()],
  // Spec 5.9: never the domain message — one fixed body whatever the cause.
  [MissionNotFoundError, () => new MissionNotFoundProblem()],
  [InvalidMissionReferenceError, () => new InvalidMissionReferenceProblem()],
  [InvalidTerminationReasonError, () => new InvalidTerminationReasonProblem()],
  [IdempotencyConflictError, () => new IdempotencyConflictProblem()],
  [MissionTerminatedError, (error: MissionTerminatedError) => new MissionTerminatedProblem(error.terminationReason)],
  [InvalidRequestError, (error: InvalidRequestError) => new InvalidRequestProblem(error.message)],
  // Spec 3 rule 5: only a terminated mission's body can be deleted (the blob deletion's own refusal).
  [MissionStillActiveError, () => new MissionActiveProblem()],
  [ManagementError, () => new InvalidRequestProblem()],
];

/**
 * The problem an error is answered with: a ProblemError as it is, a refusal of the table as its problem;
 * anything else passes unchanged (the platform answers 500 for a bug).
 */
export function toProblem(error: unknown): unknown {
  if (error instanceof ProblemError) return error;
  for (const [refusal, problem] of PROBLEM_TABLE) if (error instanceof refusal) return problem(error as never);
  return error;
}

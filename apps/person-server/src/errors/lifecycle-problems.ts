import { MissionStillActiveError } from '@mission/ps-domain';
import { ProblemError } from './problem-errors.js';
import { toProblem } from './mission-problems.js';

/** Blob deletion is an administrator's operation (spec 5.4–5.5); any other caller is refused before lookup. */
export class AdministratorRequiredError extends ProblemError {
  constructor() {
    super(403, 'access_denied', 'only an administrator may delete a mission body');
  }
}

/**
 * Spec 3 rule 5: only a terminated mission's body can be deleted. The caller is an administrator of
 * the mission's tenant (authorization already succeeded), so the state is not an oracle.
 */
export class MissionActiveProblem extends ProblemError {
  constructor() {
    super(409, 'mission_active', 'the mission is active; terminate it before deleting its body');
  }
}

/** The mission endpoint's mapping (spec 7), plus the blob deletion's own refusal. */
export function lifecycleProblem(error: unknown): unknown {
  if (error instanceof MissionStillActiveError) return new MissionActiveProblem();
  return toProblem(error);
}

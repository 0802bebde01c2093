import { InvalidCommandError } from './errors.js';
import { isActor, type Actor } from '@mission/decider';

export { actorData, type Actor } from '@mission/decider';

/** The issuer's bound on actor ids: 256 characters. */
export function assertActor(actor: unknown, what: string): asserts actor is Actor {
  if (!isActor(actor, 256)) throw new InvalidCommandError(`${what} must be an actor {id, role} with non-empty strings`);
}

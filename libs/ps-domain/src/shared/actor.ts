import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { isActor, type Actor } from '@mission/decider';

export { actorData, type Actor } from '@mission/decider';

/** The Person Server's bound on actor ids: 2048 characters. */
export function assertActor(actor: unknown, what: string): asserts actor is Actor {
  if (!isActor(actor, 2048)) throw new InvalidCommandError(`${what} must be an actor {id, role} with non-empty strings`);
}

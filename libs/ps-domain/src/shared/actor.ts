import { InvalidCommandError } from '../errors/ps-domain.error.js';

/** Who acted, with the role the decision used: `agent`, `person`, `admin` or `system`. */
export interface Actor {
  readonly id: string;
  readonly role: string;
}

export function assertActor(actor: unknown, what: string): asserts actor is Actor {
  const ok =
    typeof actor === 'object' &&
    actor !== null &&
    typeof (actor as Actor).id === 'string' &&
    typeof (actor as Actor).role === 'string' &&
    (actor as Actor).id.length > 0 &&
    (actor as Actor).id.length <= 2048 &&
    (actor as Actor).role.length > 0 &&
    (actor as Actor).role.length <= 64;
  if (!ok) throw new InvalidCommandError(`${what} must be an actor {id, role} with non-empty strings`);
}

/** A plain copy, so that event data never shares objects with commands. */
export function actorData(actor: Actor): Actor {
  return { id: actor.id, role: actor.role };
}

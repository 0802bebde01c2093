/** Who acted (DESIGN 1 `actor`): a client, agent, person, administrator, policy or a process of the service itself. */
export interface Actor {
  readonly id: string;
  /** e.g. `client`, `agent`, `person`, `admin`, `policy`, `system`. */
  readonly role: string;
}

/** An actor with a non-empty `id` of at most `maxIdLength` characters and a non-empty `role` of at most 64. */
export function isActor(value: unknown, maxIdLength: number): value is Actor {
  if (!isPlainObject(value)) return false;
  const { id, role } = value;
  return typeof id === 'string' && typeof role === 'string' && id.length > 0 && id.length <= maxIdLength && role.length > 0 && role.length <= 64;
}

/** A plain copy, so that event data never shares objects with commands. */
export function actorData(actor: Actor): Actor {
  return { id: actor.id, role: actor.role };
}

/** An object literal or `JSON.parse` result: not an array, not a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

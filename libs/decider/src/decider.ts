/**
 * A domain event as a decider produces it: a past-tense type constant and plain JSON data.
 * Storage concerns (ids, positions, metadata) are added at the edge by the es-kit.
 */
export interface DomainEvent<Type extends string = string, Data extends object = object> {
  readonly type: Type;
  readonly data: Data;
}

/**
 * The decider pattern (Jérémie Chassaing; as in event-driven-io/emmett): all business rules of one
 * aggregate as three pure values. `decide` refuses a command by throwing a domain error.
 * Time, ids and anything else non-deterministic arrive inside the command.
 */
export interface Decider<Command, Event extends DomainEvent, State> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  readonly initialState: State;
}

export function fold<Event extends DomainEvent, State>(
  decider: Pick<Decider<never, Event, State>, 'evolve' | 'initialState'>,
  events: Iterable<Event>,
): State {
  let state = decider.initialState;
  for (const event of events) state = decider.evolve(state, event);
  return state;
}

/**
 * The end of every `decide` switch over a command union: `command` is `never` once every command type has
 * its case, so a type added to the union without one fails to compile. At run time (a command built outside
 * the types) it throws the decider's own refusal.
 */
export function unknownCommand(command: never, refusal: () => Error): never {
  void command;
  throw refusal();
}

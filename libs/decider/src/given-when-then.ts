import { deepStrictEqual, fail } from 'node:assert/strict';
import { fold, type Decider, type DomainEvent } from './decider.js';

/**
 * Given/when/then for deciders, framework-free (node:assert) so it works under any runner:
 *
 *   given(missionDecider, [created]).when(revoke).then([revoked]);
 *   given(missionDecider, [revoked]).when(revoke).thenThrows(MissionNotActive);
 */
export function given<Command, Event extends DomainEvent, State>(decider: Decider<Command, Event, State>, history: Event[] = []) {
  const state = fold(decider, history);
  return {
    when(command: Command) {
      const run = (): { events: Event[] } | { error: unknown } => {
        try {
          return { events: decider.decide(command, state) };
        } catch (error) {
          return { error };
        }
      };
      return {
        then(expected: Event[]): State {
          const outcome = run();
          if ('error' in outcome) fail(`expected events ${JSON.stringify(expected)}, but decide threw: ${String(outcome.error)}`);
          deepStrictEqual(outcome.events, expected);
          return fold({ ...decider, initialState: state }, outcome.events);
        },
        thenNothingHappens(): void {
          const outcome = run();
          if ('error' in outcome) fail(`expected no events, but decide threw: ${String(outcome.error)}`);
          deepStrictEqual(outcome.events, []);
        },
        thenThrows(errorClass: abstract new (...args: never[]) => Error, check?: (error: Error) => void): void {
          const outcome = run();
          if (!('error' in outcome)) fail(`expected ${errorClass.name}, but decide returned ${JSON.stringify(outcome.events)}`);
          if (!(outcome.error instanceof errorClass)) fail(`expected ${errorClass.name}, got ${String(outcome.error)}`);
          check?.(outcome.error);
        },
      };
    },
  };
}

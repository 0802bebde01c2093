import { given } from './given-when-then.js';
import type { Decider, DomainEvent } from './decider.js';

type Event = DomainEvent<'Opened', { at: string }> | DomainEvent<'Closed', { at: string }>;
type Command = { type: 'open' | 'close'; now: string };
type State = { status: 'new' | 'open' | 'closed' };
class AlreadyClosed extends Error {}

const door: Decider<Command, Event, State> = {
  initialState: { status: 'new' },
  decide: (command, state) => {
    if (state.status === 'closed') throw new AlreadyClosed('closed for good');
    if (command.type === 'open') return state.status === 'open' ? [] : [{ type: 'Opened', data: { at: command.now } }];
    return [{ type: 'Closed', data: { at: command.now } }];
  },
  evolve: (_, event) => ({ status: event.type === 'Opened' ? 'open' : 'closed' }),
};

describe('given/when/then for deciders', () => {
  it('checks the events decided and returns the state they lead to', () => {
    const state = given(door).when({ type: 'open', now: 't1' }).then([{ type: 'Opened', data: { at: 't1' } }]);
    expect(state).toEqual({ status: 'open' });
  });

  it('fails when the events differ', () => {
    expect(() => given(door).when({ type: 'open', now: 't1' }).then([{ type: 'Opened', data: { at: 't2' } }])).toThrow();
  });

  it('checks idempotent commands decide nothing', () => {
    given(door, [{ type: 'Opened', data: { at: 't1' } }]).when({ type: 'open', now: 't2' }).thenNothingHappens();
  });

  it('checks refusals by error class, and fails when the decider does not refuse', () => {
    given(door, [{ type: 'Closed', data: { at: 't1' } }]).when({ type: 'open', now: 't2' }).thenThrows(AlreadyClosed);
    expect(() => given(door).when({ type: 'open', now: 't2' }).thenThrows(AlreadyClosed)).toThrow(/expected AlreadyClosed/);
  });
});

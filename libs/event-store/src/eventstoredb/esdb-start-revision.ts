import { InvalidEventError } from '../port/errors.js';
import type { ReadStreamOptions } from '../port/event-store.js';

/** Where a stream read starts on EventStoreDB: its own 'start' / 'end' markers or a revision. */
export function startRevision(from: ReadStreamOptions['fromRevision'], backwards: boolean): bigint | 'start' | 'end' {
  if (from === undefined) return backwards ? 'end' : 'start';
  if (from === 'start' || from === 'end') return from;
  if (typeof from !== 'bigint' || from < 0n) throw new InvalidEventError('fromRevision must be start, end or a bigint ≥ 0');
  return from;
}

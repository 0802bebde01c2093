import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { isValidDate } from '@mission/decider';

export function assertDate(value: unknown, what: string): asserts value is Date {
  if (!isValidDate(value)) throw new InvalidCommandError(`${what} must be a valid Date`);
}

export function assertOptionalDate(value: unknown, what: string): asserts value is Date | undefined {
  if (value !== undefined) assertDate(value, what);
}

export function assertText(value: unknown, what: string, maxLength: number): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    throw new InvalidCommandError(`${what} must be a non-empty string of at most ${maxLength} characters`);
  }
}

/** `date.toISOString()`: the one RFC 3339 spelling this domain writes (milliseconds, `Z`). */
export function rfc3339(date: Date): string {
  return date.toISOString();
}

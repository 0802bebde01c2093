import { InvalidCommandError } from './errors.js';
import { isValidDate } from '@mission/decider';

export function assertDate(value: unknown, what: string): asserts value is Date {
  if (!isValidDate(value)) throw new InvalidCommandError(`${what} must be a valid Date`);
}

export function assertText(value: unknown, what: string, maxLength: number): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    throw new InvalidCommandError(`${what} must be a non-empty string of at most ${maxLength} characters`);
  }
}

export function assertOptionalText(value: unknown, what: string, maxLength: number): asserts value is string | undefined {
  if (value !== undefined) assertText(value, what, maxLength);
}

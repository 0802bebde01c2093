/**
 * Base class of every refusal this domain throws. Messages are safe to send to a client: they never
 * quote input values, only member names and limits.
 */
export abstract class PsDomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * A command the application built wrongly (a malformed id, a hash of the wrong shape, an invalid
 * Date): a bug at the caller, never a client's fault. Answer 500 and log it.
 */
export class InvalidCommandError extends PsDomainError {}

/**
 * Base class of every refusal this domain throws. The message is written to be safe as an OAuth
 * `error_description`: it never quotes input values, only member names and limits.
 */
export abstract class IssuerDomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * A command the application built wrongly (a malformed id, a hash of the wrong shape, an
 * expiry before `now`): a bug at the caller, never a client's fault. Answer 500, log it.
 */
export class InvalidCommandError extends IssuerDomainError {}

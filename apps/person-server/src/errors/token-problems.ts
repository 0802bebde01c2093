import { ProblemError } from './problem-errors.js';

/** DESIGN 3.1, 3.3: only an Owning Agent (not a Management Principal, not a sub-agent) asks for Auth Tokens. */
export class TokenAccessDeniedError extends ProblemError {
  constructor(detail: string) {
    super(403, 'access_denied', detail);
  }
}

/** `invalid_request` (400) for the token endpoint: the body, or a token in it, is unusable; the detail names the check. */
export class InvalidTokenRequestError extends ProblemError {
  constructor(detail: string) {
    super(400, 'invalid_request', detail);
  }
}

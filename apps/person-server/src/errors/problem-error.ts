import { ProtocolError, type ProtocolErrorMember } from '@mission/protocol-errors';

/** RFC 9457 §3: the media type of every Person Server error (spec 7). */
export const PROBLEM_JSON = 'application/problem+json';

/** RFC 9110 §15 reason phrases for the statuses we answer with (RFC 9457 §4.2.1: the `about:blank` title). */
const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

export interface ProblemOptions {
  /** Extension members beside `error` (e.g. `mission_status`). */
  readonly members?: Readonly<Record<string, ProtocolErrorMember>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

/**
 * A Person Server error as `application/problem+json` (spec 7, RFC 9457) carrying the spec's `error` code:
 * `{"type":"about:blank","title":<status phrase>,"status":<n>,"error":<code>,"detail"?,...members}`.
 * `type` is `about:blank` so that no problem-type URI is invented: clients branch on `error` (the spec 7
 * code), never on `title` or `detail`. `detail` is sent to the client: it must never quote input values
 * or internals. The global `ErrorResponseFilter` sends `toBody()`, the status, headers and content type.
 */
export abstract class ProblemError extends ProtocolError {
  protected constructor(status: number, code: string, detail: string | undefined, options: ProblemOptions = {}) {
    super(status, code, detail, {
      contentType: PROBLEM_JSON,
      ...(options.members !== undefined ? { members: options.members } : {}),
      ...(options.headers !== undefined ? { headers: options.headers } : {}),
      ...(options.cause !== undefined ? { cause: options.cause } : {}),
    });
  }

  override toBody(): Record<string, ProtocolErrorMember> {
    return {
      type: 'about:blank',
      title: STATUS_TITLES[this.status] ?? 'Error',
      status: this.status,
      error: this.code,
      ...(this.description ? { detail: this.description } : {}),
      ...this.members,
    };
  }
}

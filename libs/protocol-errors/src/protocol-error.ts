export type ProtocolErrorMember = string | number | boolean | null;

export interface ProtocolErrorOptions {
  /** Extra members of the error body, e.g. `mission_denial_reason`. */
  readonly members?: Readonly<Record<string, ProtocolErrorMember>>;
  /** Response headers, e.g. `WWW-Authenticate` for failed client authentication. */
  readonly headers?: Readonly<Record<string, string>>;
  /** `application/json` unless the protocol says otherwise (e.g. `application/problem+json`). */
  readonly contentType?: string;
  readonly cause?: unknown;
}

/**
 * An error the protocol defines, answered as `{"error": code, "error_description": description, ...members}`.
 * Each protocol error code gets a subclass; the global filter maps any of them without further code.
 * The description is sent to the client: never put internals in it.
 */
export class ProtocolError extends Error {
  readonly members: Readonly<Record<string, ProtocolErrorMember>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: string;

  constructor(
    readonly status: number,
    readonly code: string,
    readonly description?: string,
    options: ProtocolErrorOptions = {},
  ) {
    super(description ? `${code}: ${description}` : code, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.members = options.members ?? {};
    this.headers = options.headers ?? {};
    this.contentType = options.contentType ?? 'application/json';
  }

  toBody(): Record<string, ProtocolErrorMember> {
    return { error: this.code, ...(this.description ? { error_description: this.description } : {}), ...this.members };
  }
}

/** RFC 6749 `invalid_request`: missing, repeated or malformed parameters, unparseable bodies. */
export class InvalidRequestError extends ProtocolError {
  constructor(description: string, options?: ProtocolErrorOptions) {
    super(400, 'invalid_request', description, options);
  }
}

/** `404 {"error":"not_found"}`: also the answer for "exists but not yours", so it must not say which. */
export class NotFoundError extends ProtocolError {
  constructor(description?: string, options?: ProtocolErrorOptions) {
    super(404, 'not_found', description, options);
  }
}

/** Every failure the SDK raises is a {@link MissionClientError}; `code` is stable, `message` is for people. */
export class MissionClientError extends Error {
  override readonly name: string = 'MissionClientError';

  constructor(
    /** `bad_key`, `bad_url`, `unreachable`, `invalid_response`, or a protocol error code from the service. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The service answered with a protocol error: OAuth `{error, error_description, mission_denial_reason?}`
 * (issuer) or RFC 9457 problem+json (Person Server).
 */
export class ProtocolError extends MissionClientError {
  override readonly name = 'ProtocolError';

  constructor(
    readonly status: number,
    code: string,
    description: string | undefined,
    readonly body: Record<string, unknown> = {},
  ) {
    super(code, `${code} (HTTP ${status})${description ? `: ${description}` : ''}`);
  }

  /** Child Mission denial reason (spec 7), when the issuer gave one. */
  get denialReason(): string | undefined {
    const reason = this.body['mission_denial_reason'];
    return typeof reason === 'string' ? reason : undefined;
  }
}

/** The service could not be reached (connection refused, DNS, timeout). */
export class UnreachableError extends MissionClientError {
  override readonly name = 'UnreachableError';

  constructor(url: string, cause: unknown) {
    super('unreachable', `cannot reach ${url}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** Builds a {@link ProtocolError} from an error response of either service. */
export async function protocolErrorOf(response: Response): Promise<ProtocolError> {
  const text = await response.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: the status alone speaks
  }
  const code = typeof body['error'] === 'string' ? body['error'] : `http_${response.status}`;
  const description = [body['error_description'], body['detail'], body['title']].find((value) => typeof value === 'string') as string | undefined;
  return new ProtocolError(response.status, code, description ?? (text && !body['error'] ? text.slice(0, 200) : undefined), body);
}

import { ProtocolError, type ProtocolErrorOptions } from '@mission/protocol-errors';

/** RFC 6749 §4.1.2.1 `temporarily_unavailable`: a contended or failing write; 503 with `Retry-After`. */
export class TemporarilyUnavailableError extends ProtocolError {
  constructor(description: string, options: ProtocolErrorOptions = {}) {
    super(503, 'temporarily_unavailable', description, { ...options, headers: { 'Retry-After': '1', ...options.headers } });
  }
}

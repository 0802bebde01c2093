import type { FastifyRequest } from 'fastify';
import { pathOf } from '@mission/platform';

/** What the request-level code passes along for the security audit (spec 5.9, 6): never bodies or headers. */
export interface RequestFacts {
  readonly source?: string;
  readonly method?: string;
  readonly path?: string;
  readonly requestId?: string;
}

export function requestFacts(request: FastifyRequest): RequestFacts {
  const source = request.ip ?? request.socket?.remoteAddress;
  return { ...(source !== undefined ? { source } : {}), method: request.method, path: pathOf(request), requestId: request.id };
}

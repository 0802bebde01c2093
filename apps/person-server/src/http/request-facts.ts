import type { FastifyRequest } from 'fastify';
import { pathOf } from '@mission/platform';

/** What the request-level code passes along for the security audit (spec 5.9, 6): never bodies or headers. */
export interface RequestFacts {
  readonly source?: string;
  readonly method?: string;
  readonly path?: string;
  readonly requestId?: string;
}

/** Built once per request: the guard and the controller both ask, and `request.ip` is not free (issue 15). */
const factsOf = new WeakMap<FastifyRequest, RequestFacts>();

export function requestFacts(request: FastifyRequest): RequestFacts {
  let facts = factsOf.get(request);
  if (facts === undefined) {
    const source = request.ip ?? request.socket?.remoteAddress;
    facts = { ...(source !== undefined ? { source } : {}), method: request.method, path: pathOf(request), requestId: request.id };
    factsOf.set(request, facts);
  }
  return facts;
}

import type { FastifyRequest } from 'fastify';
import type { RequestTrace } from '@mission/es-kit';
import { pathOf, requestTraceOf } from '@mission/platform';

/** What the request-level code passes along for the security audit (spec 5.9, 6): never bodies or headers. */
export interface RequestFacts {
  readonly source?: string;
  readonly method?: string;
  readonly path?: string;
  readonly requestId?: string;
  /** The request's trace (ADR 0050), for the metadata of the events it appends and its log lines (ADR 0082). */
  readonly trace?: RequestTrace | undefined;
}

/** Built once per request: the guard and the controller both ask, and `request.ip` is not free (issue 15). */
const factsOf = new WeakMap<FastifyRequest, RequestFacts>();

export function requestFacts(request: FastifyRequest): RequestFacts {
  let facts = factsOf.get(request);
  if (facts === undefined) {
    const source = request.ip ?? request.socket?.remoteAddress;
    facts = { ...(source !== undefined ? { source } : {}), method: request.method, path: pathOf(request), requestId: request.id, trace: requestTraceOf(request) };
    factsOf.set(request, facts);
  }
  return facts;
}

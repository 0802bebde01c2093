import type { Request, Response } from 'express';

/** What the request-level code passes along for the security audit (spec 5.9, 6): never bodies or headers. */
export interface RequestFacts {
  readonly source?: string;
  readonly method?: string;
  readonly path?: string;
  readonly requestId?: string;
}

export function requestFacts(request: Request, response: Response): RequestFacts {
  const requestId = response.locals?.['requestId'];
  const source = request.ip ?? request.socket?.remoteAddress;
  return { ...(source !== undefined ? { source } : {}), method: request.method, path: request.path, ...(typeof requestId === 'string' ? { requestId } : {}) };
}

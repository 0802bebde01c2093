import type { Request } from 'express';
import { parseStrictJson, StrictJsonError } from '@mission/strict-json';
import { InvalidManagementRequestError } from '../errors/problem-errors.js';

/** Spec 4 / DESIGN 3.3: the exact received bytes parsed strictly — a duplicate member name is invalid_request. */
export function strictJsonBody(request: Request): unknown {
  const raw = (request as Request & { rawBody?: Buffer }).rawBody;
  if (raw === undefined || raw.length === 0) throw new InvalidManagementRequestError('a JSON body is required');
  try {
    return parseStrictJson(raw.toString('utf8'));
  } catch (error) {
    if (error instanceof StrictJsonError) throw new InvalidManagementRequestError('the body must be JSON without duplicate member names');
    throw error;
  }
}

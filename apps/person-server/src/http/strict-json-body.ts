import type { RawBodyRequest } from '@mission/platform';
import { parseStrictJson, StrictJsonError } from '@mission/strict-json';
import { InvalidRequestProblem } from '../errors/problems.js';

/** Spec 4 / DESIGN 3.3: the exact received bytes parsed strictly — a duplicate member name is invalid_request. */
export function strictJsonBody(request: RawBodyRequest): unknown {
  const raw = request.rawBody;
  if (raw === undefined || raw.length === 0) throw new InvalidRequestProblem('a JSON body is required');
  try {
    return parseStrictJson(raw.toString('utf8'));
  } catch (error) {
    if (error instanceof StrictJsonError) throw new InvalidRequestProblem('the body must be JSON without duplicate member names');
    throw error;
  }
}

import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { PROBLEM_JSON } from '../../errors/problem-error.js';
import { SIGNATURE_ERROR_CODES, SIGNATURE_FAILURE_REASONS } from '../../errors/signature-verification.problem.js';

export const JSON_TYPE = 'application/json';
type Status = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 503;

const STATUS_TEXT: Readonly<Record<Status, string>> = {
  400: 'Refused (spec 7)',
  401: 'The RFC 9421 signature, its Content-Digest or its Signature-Key was refused (`Signature-Error` header names the draft code and our `reason`)',
  403: 'The caller may not make this request',
  404: 'Absent, or the caller may not know it exists: byte-identical answers (spec 5.9)',
  409: 'Conflict',
  413: 'The body is larger than REQUEST_BODY_LIMIT_BYTES',
  415: 'A `Content-Encoding` other than `identity` (ADR 0014)',
  429: 'A rate limit was exceeded (`Retry-After`)',
  503: 'Busy; retry after `Retry-After`',
};

/** Every signed endpoint can answer these besides its own (DESIGN 3.2: authentication and abuse control come first). */
export const SIGNED_REQUEST_ERRORS = { 401: SIGNATURE_ERROR_CODES, 413: ['invalid_request'], 415: ['invalid_request'], 429: ['rate_limited'] } as const;

/**
 * Declares the problem+json answers (RFC 9457, spec 7) of one operation: per status, the closed set of
 * `error` codes the Person Server sends there, with `Cache-Control: no-store`.
 */
export function ProblemErrors(codes: Readonly<Partial<Record<Status, readonly string[]>>>): MethodDecorator {
  const all: Partial<Record<Status, readonly string[]>> = { ...SIGNED_REQUEST_ERRORS, ...codes };
  return applyDecorators(
    ...Object.entries(all).map(([status, errors]) =>
      ApiResponse({
        status: Number(status),
        description: `${STATUS_TEXT[Number(status) as Status]}: ${errors!.map((code) => `\`${code}\``).join(', ')}`,
        content: { [PROBLEM_JSON]: { schema: problemSchema(Number(status), errors!) } },
      }),
    ),
  );
}

function problemSchema(status: number, codes: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    required: ['type', 'title', 'status', 'error'],
    properties: {
      type: { type: 'string', enum: ['about:blank'] },
      title: { type: 'string' },
      status: { type: 'integer', enum: [status] },
      error: { type: 'string', enum: [...codes] },
      detail: { type: 'string' },
      ...(status === 401 ? { signature_error: { type: 'string', enum: [...SIGNATURE_FAILURE_REASONS] } } : {}),
      ...(codes.includes('mission_terminated') ? { mission_status: { type: 'string', enum: ['terminated'] }, termination_reason: { type: 'string' } } : {}),
    },
  };
}

/** A JSON answer with `Cache-Control: no-store` (spec 5.8). */
export function JsonAnswer(status: number, description: string, schema: Record<string, unknown>): MethodDecorator {
  return ApiResponse({ status, description, content: { [JSON_TYPE]: { schema } }, headers: { 'Cache-Control': { schema: { type: 'string', enum: ['no-store'] } } } });
}

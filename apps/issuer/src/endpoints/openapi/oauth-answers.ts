import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { CHILD_DENIAL_REASONS } from '@mission/issuer-domain';

export const FORM = 'application/x-www-form-urlencoded';
export const JSON_TYPE = 'application/json';

/** The statuses the issuer answers errors with, and a word on each for the document. */
const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'The request was refused (RFC 6749 §5.2 error codes and the profiles’ own)',
  401: 'Client authentication failed (`WWW-Authenticate: private_key_jwt`)',
  403: 'Denied by policy',
  404: 'Unknown, or not this client’s: the same answer for both',
  409: 'A compare-and-set lost (`reason`: `stale_version`, …)',
  503: 'Busy; retry after `Retry-After`',
};

/**
 * Declares the error answers of one operation: per status, the closed set of OAuth `error` codes the
 * issuer sends there (`{"error", "error_description"}`, `Cache-Control: no-store`), plus
 * `mission_denial_reason` (spec child-mission-delegation 7) where Child Mission creation can be denied.
 */
export function OAuthErrors(codes: Readonly<Partial<Record<400 | 401 | 403 | 404 | 409 | 503, readonly string[]>>>, options: { readonly denialReasons?: boolean } = {}): MethodDecorator {
  return applyDecorators(
    ...Object.entries(codes).map(([status, errors]) =>
      ApiResponse({
        status: Number(status),
        description: `${STATUS_TEXT[Number(status)]}: ${errors!.map((code) => `\`${code}\``).join(', ')}`,
        content: { [JSON_TYPE]: { schema: oauthErrorSchema(errors!, options.denialReasons === true && ['400', '403'].includes(status)) } },
      }),
    ),
  );
}

function oauthErrorSchema(codes: readonly string[], denialReasons: boolean): Record<string, unknown> {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: { type: 'string', enum: [...codes] },
      error_description: { type: 'string' },
      ...(denialReasons ? { mission_denial_reason: { type: 'string', enum: [...CHILD_DENIAL_REASONS], description: 'Spec child-mission-delegation 7: why a Child Mission creation was denied' } } : {}),
      ...(codes.includes('conflict') ? { reason: { type: 'string', examples: ['stale_version'] } } : {}),
    },
  };
}

/** A JSON object answer with `Cache-Control: no-store`. */
export function JsonAnswer(status: number, description: string, schema: Record<string, unknown>): MethodDecorator {
  return ApiResponse({ status, description, content: { [JSON_TYPE]: { schema } }, headers: { 'Cache-Control': { schema: { type: 'string', enum: ['no-store'] } } } });
}

import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { InvalidRequestError, ProtocolError } from '@mission/protocol-errors';

/** What a service does with a request body sent with a `Content-Encoding` (other than `identity`). */
export type ContentCodingPolicy = 'inflate' | 'refuse';

/**
 * JSON and form bodies, size-capped, with the exact received bytes kept on `req.rawBody` (the app is
 * created with `rawBody: true`): content digests and strict JSON parsing need the bytes, not a re-serialisation.
 *
 * With `contentCodings: 'refuse'` a coded body (gzip, deflate, br, …) is answered 415 before any decoding:
 * body-parser's `verify` hook — the source of `req.rawBody` — only ever sees the *decoded* bytes, so a
 * digest checked against `req.rawBody` would be over the inflated content, not the bytes received
 * (RFC 9530 §2; ADR 0014).
 */
export function installBodyParsers(app: NestExpressApplication, limitBytes: number, contentCodings: ContentCodingPolicy = 'inflate'): void {
  const inflate = contentCodings === 'inflate';
  app.useBodyParser('json', { limit: limitBytes, type: ['application/json', 'application/*+json'], strict: true, inflate });
  // extended: false — OAuth form parameters are flat strings; nested `a[b]=c` objects are never meant.
  app.useBodyParser('urlencoded', { limit: limitBytes, extended: false, parameterLimit: 200, inflate });
  app.use(translateBodyParserErrors(limitBytes));
}

interface BodyParserError {
  readonly type: string;
  readonly status: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as BodyParserError).type === 'string' && typeof (error as BodyParserError).status === 'number';
}

/**
 * body-parser's own messages echo parts of the body back and name library internals; these replace
 * them with protocol errors that say what to fix.
 */
function translateBodyParserErrors(limitBytes: number) {
  return (error: unknown, _request: Request, _response: Response, next: NextFunction): void => {
    if (!isBodyParserError(error)) return next(error);
    switch (error.type) {
      case 'entity.parse.failed':
        return next(new InvalidRequestError('the request body is not valid JSON', { cause: error }));
      case 'entity.too.large':
        return next(new ProtocolError(413, 'invalid_request', `the request body exceeds ${limitBytes} bytes`, { cause: error }));
      case 'parameters.too.many':
        return next(new ProtocolError(413, 'invalid_request', 'the form body has too many parameters', { cause: error }));
      case 'charset.unsupported':
        return next(new ProtocolError(415, 'invalid_request', 'the request body charset is not supported (use utf-8)', { cause: error }));
      case 'encoding.unsupported':
        return next(new ProtocolError(415, 'invalid_request', 'the request body content-encoding is not supported (send the body without Content-Encoding)', { cause: error }));
      default:
        if (error.status >= 400 && error.status < 500) {
          return next(new ProtocolError(error.status, 'invalid_request', 'the request body could not be read', { cause: error }));
        }
        return next(error);
    }
  };
}

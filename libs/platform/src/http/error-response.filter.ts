import { STATUS_CODES } from 'node:http';
import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { traceLogFields } from '../logging/create-logger.js';
import { requestTraceOf } from '../tracing/trace-requests.js';
import { pathOf } from './request-observer.js';
import type { Logger } from 'pino';
import { ProtocolError, type ProtocolErrorMember } from '@mission/protocol-errors';

interface ErrorReply {
  readonly status: number;
  readonly body: Record<string, ProtocolErrorMember>;
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: string;
}

/** OAuth-style codes for the statuses Nest and Express raise on their own (no route, body too large…). */
const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'access_denied',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  409: 'conflict',
  411: 'invalid_request',
  413: 'invalid_request',
  414: 'invalid_request',
  415: 'invalid_request',
  422: 'invalid_request',
  429: 'too_many_requests',
  503: 'temporarily_unavailable',
};

/**
 * The single place errors become responses: protocol errors and Nest HTTP exceptions keep their status
 * with an OAuth-shaped body and `Cache-Control: no-store`; anything else is a bug and becomes
 * `500 {"error":"server_error"}` with the details only in the log.
 */
/**
 * How a service spells errors that are not already its own protocol errors (a body that is not JSON, an
 * unknown route, a bug): OAuth-style `{"error","error_description"}` (RFC 6749 §5.2, the issuer) or
 * RFC 9457 `application/problem+json` `{"type","title","status","error","detail"}` (the Person Server, spec
 * mission-management 7). The `error` code is the same in both.
 */
export type ErrorFormat = 'oauth' | 'problem';

@Catch()
export class ErrorResponseFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    private readonly format: ErrorFormat = 'oauth',
    private readonly bodyLimitBytes?: number,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.send(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }

  /** Also Fastify's `frameworkErrors` handler: errors raised before Nest sees the request (a malformed URL). */
  send(exception: unknown, request: FastifyRequest, response: FastifyReply): void {
    const reply = this.inFormat(this.toReply(fromServer(exception, this.bodyLimitBytes), request));
    if (response.sent || response.raw.headersSent) {
      // Too late for a status: cut the connection so the client sees a failure, not a truncated success.
      response.raw.destroy();
      return;
    }
    response.status(reply.status);
    for (const [name, value] of Object.entries(reply.headers)) response.header(name, value);
    response.header('Cache-Control', 'no-store');
    response.header('Content-Type', `${reply.contentType}; charset=utf-8`);
    response.send(JSON.stringify(reply.body));
  }

  /** Re-spells an OAuth-style reply as RFC 9457 for `problem` services; replies that are already problem+json pass. */
  private inFormat(reply: ErrorReply): ErrorReply {
    if (this.format !== 'problem' || reply.contentType !== 'application/json') return reply;
    const { error, error_description: description, ...members } = reply.body;
    return {
      ...reply,
      contentType: 'application/problem+json',
      body: {
        type: 'about:blank',
        title: STATUS_CODES[reply.status] ?? 'Error',
        status: reply.status,
        error: error ?? 'server_error',
        ...(description !== undefined ? { detail: description } : {}),
        ...members,
      },
    };
  }

  private toReply(exception: unknown, request: FastifyRequest): ErrorReply {
    if (exception instanceof ProtocolError) {
      if (exception.status >= 500) this.logger.warn({ ...traceLogFields(requestTraceOf(request)), err: exception, method: request.method, path: pathOf(request) }, 'request answered with a server-side protocol error');
      return { status: exception.status, body: exception.toBody(), headers: exception.headers, contentType: exception.contentType };
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      const status = exception.getStatus();
      const description = describeHttpException(exception);
      return {
        status,
        body: { error: CODE_BY_STATUS[status] ?? 'invalid_request', ...(description ? { error_description: description } : {}) },
        headers: {},
        contentType: 'application/json',
      };
    }
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    this.logger.error({ ...traceLogFields(requestTraceOf(request)), err: exception, method: request.method, path: pathOf(request), status }, 'request failed with an unexpected error');
    return {
      status,
      body: { error: status === 503 ? 'temporarily_unavailable' : 'server_error' },
      headers: {},
      contentType: 'application/json',
    };
  }
}

/** The message a 4xx HttpException was built with; Nest's default wrapper object is unwrapped. */
function describeHttpException(exception: HttpException): string | undefined {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.filter((part) => typeof part === 'string').join('; ');
  return undefined;
}

/** The errors Fastify raises itself before a handler runs (reading the body, its length, its type). */
interface ServerError {
  readonly code: string;
  readonly statusCode: number;
}

const SERVER_ERROR_MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'the request body length does not match Content-Length',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'the request body media type is not supported',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'the request body is empty',
  FST_ERR_BAD_URL: 'the request URL is malformed',
};

function isServerError(error: unknown): error is ServerError {
  return error instanceof Error && typeof (error as Partial<ServerError>).code === 'string' && (error as Partial<ServerError>).code!.startsWith('FST_')
    && typeof (error as Partial<ServerError>).statusCode === 'number';
}

/** Fastify's own 4xx errors as protocol errors that say what to fix (their messages name library internals). */
function fromServer(exception: unknown, bodyLimitBytes: number | undefined): unknown {
  // The client hung up while its body was being read: nothing can be answered, and it is no server fault.
  const code = (exception as { code?: unknown } | null)?.code;
  if (!(exception instanceof HttpException) && (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE')) {
    return new ProtocolError(400, 'invalid_request', 'the request body was not received completely', { cause: exception });
  }
  // Nest's Fastify adapter hands them on as an HttpException with the Fastify error as its cause.
  const error = exception instanceof HttpException && isServerError(exception.cause) ? exception.cause : exception;
  if (!isServerError(error) || error.statusCode >= 500 || error.statusCode < 400) return exception;
  return serverErrorAsProtocolError(error, bodyLimitBytes);
}

function serverErrorAsProtocolError(exception: ServerError, bodyLimitBytes: number | undefined): ProtocolError {
  if (exception.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new ProtocolError(413, 'invalid_request', bodyLimitBytes !== undefined ? `the request body exceeds ${bodyLimitBytes} bytes` : 'the request body is too large', { cause: exception });
  }
  return new ProtocolError(exception.statusCode, 'invalid_request', SERVER_ERROR_MESSAGES[exception.code] ?? 'the request could not be read', { cause: exception });
}

import { createParamDecorator, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { RawBodyRequest } from '@mission/platform';
import { requestFacts } from '../http/request-facts.js';
import { RateLimiter } from '../abuse/rate-limiter.js';
import { SecurityAudit } from '../abuse/security-audit.js';
import { callerKey, type AuthenticatedCaller } from '../identity/authenticated-caller.js';
import { RequestAuthenticator } from './request-authenticator.js';
import { RateLimitedProblem } from '../errors/problems.js';
import { SignatureVerificationProblem } from '../errors/signature-verification.problem.js';

const callers = new WeakMap<object, AuthenticatedCaller>();

/** The caller {@link SignedRequestGuard} authenticated for this request; throws if the guard did not run. */
export function authenticatedCallerOf(request: object): AuthenticatedCaller {
  const caller = callers.get(request);
  if (caller === undefined) throw new Error('the request was not authenticated: add @UseGuards(SignedRequestGuard)');
  return caller;
}

/** Controller parameter: the {@link AuthenticatedCaller} of a route guarded by {@link SignedRequestGuard}. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): AuthenticatedCaller =>
  authenticatedCallerOf(context.switchToHttp().getRequest<FastifyRequest>()),
);

/**
 * Every signed Person Server route (spec 5, 8; DESIGN 3.2), in order: the per-source rate limit
 * (before any verification work), {@link RequestAuthenticator}, the per-caller rate limit. Refusals are
 * recorded in the security audit (`rate_limited`, `signature_failed`) and answered 429 / 401. Use with
 * `@UseGuards(SignedRequestGuard)` and read the caller with `@Caller()`.
 */
@Injectable()
export class SignedRequestGuard implements CanActivate {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly limiter: RateLimiter,
    private readonly audit: SecurityAudit,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<RawBodyRequest>();
    const seen = requestFacts(request);
    const { source } = seen;

    const sourceRefusal = this.limiter.trySource(source);
    if (sourceRefusal !== undefined) {
      this.audit.record({ kind: 'rate_limited', reason: sourceRefusal.limit, ...seen });
      throw new RateLimitedProblem(sourceRefusal.retryAfterSeconds);
    }
    let caller: AuthenticatedCaller;
    try {
      caller = await this.authenticator.authenticate(request);
    } catch (error) {
      if (error instanceof SignatureVerificationProblem) this.audit.record({ kind: 'signature_failed', reason: error.reason, ...seen });
      throw error;
    }
    const callerRefusal = this.limiter.tryCaller(callerKey(caller));
    if (callerRefusal !== undefined) {
      this.audit.record({ kind: 'rate_limited', reason: callerRefusal.limit, caller, ...seen });
      throw new RateLimitedProblem(callerRefusal.retryAfterSeconds);
    }
    callers.set(request, caller);
    return true;
  }
}

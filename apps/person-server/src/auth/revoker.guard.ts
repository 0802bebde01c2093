import { createParamDecorator, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { pathOf, type RawBodyRequest } from '@mission/platform';
import { RateLimiter } from '../abuse/rate-limiter.js';
import { SecurityAudit } from '../abuse/security-audit.js';
import { signatureKeyOf } from './authentication-rules.js';
import { callerKey } from '../identity/authenticated-caller.js';
import { RateLimitedProblem } from '../errors/problems.js';
import { SignatureVerificationProblem } from '../errors/signature-verification.problem.js';
import { authenticatedCallerOf, SignedRequestGuard } from './signed-request.guard.js';
import { ResourceRequestAuthenticator } from './resource-request-authenticator.js';
import { revokerKey, type Revoker } from './revoker.js';

const revokers = new WeakMap<object, Revoker>();

/** Controller parameter: the {@link Revoker} {@link RevokerGuard} authenticated. */
export const AuthenticatedRevoker = createParamDecorator((_data: unknown, context: ExecutionContext): Revoker => {
  const revoker = revokers.get(context.switchToHttp().getRequest<FastifyRequest>());
  if (revoker === undefined) throw new Error('the request was not authenticated: add @UseGuards(RevokerGuard)');
  return revoker;
});

function signedByResourceKey(request: FastifyRequest): boolean {
  try {
    return signatureKeyOf(request.headers).scheme === 'jwks_uri';
  } catch {
    return false;
  }
}

/**
 * The revocation endpoint's authentication (ADR 0016): a request signed with a resource's key (`jwks_uri`) is
 * authenticated as that resource — with the same per-source and per-caller rate limits and security audit as
 * {@link SignedRequestGuard}; every other request goes through {@link SignedRequestGuard} (agents, principals).
 */
@Injectable()
export class RevokerGuard implements CanActivate {
  constructor(
    private readonly signed: SignedRequestGuard,
    private readonly resources: ResourceRequestAuthenticator,
    private readonly limiter: RateLimiter,
    private readonly audit: SecurityAudit,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RawBodyRequest>();
    if (!signedByResourceKey(request)) {
      await this.signed.canActivate(context);
      revokers.set(request, authenticatedCallerOf(request));
      return true;
    }
    const source = request.ip ?? request.socket?.remoteAddress;
    const seen = { ...(source !== undefined ? { source } : {}), method: request.method, path: pathOf(request) };
    const sourceRefusal = this.limiter.trySource(source);
    if (sourceRefusal !== undefined) {
      this.audit.record({ kind: 'rate_limited', reason: sourceRefusal.limit, ...seen });
      throw new RateLimitedProblem(sourceRefusal.retryAfterSeconds);
    }
    let revoker: Revoker;
    try {
      revoker = await this.resources.authenticate(request);
    } catch (error) {
      if (error instanceof SignatureVerificationProblem) this.audit.record({ kind: 'signature_failed', reason: error.reason, ...seen });
      throw error;
    }
    const callerRefusal = this.limiter.tryCaller(revokerKey(revoker, callerKey));
    if (callerRefusal !== undefined) {
      this.audit.record({ kind: 'rate_limited', reason: callerRefusal.limit, ...seen });
      throw new RateLimitedProblem(callerRefusal.retryAfterSeconds);
    }
    revokers.set(request, revoker);
    return true;
  }
}

import { randomBytes } from 'node:crypto';
import type { ExecutionContext } from '@nestjs/common';
import type { EventData, EventStore } from '@mission/event-store';
import type { Logger } from '@mission/platform';
import { AuditDigestKey } from '../abuse/audit-digest-key.js';
import { RateLimiter } from '../abuse/rate-limiter.js';
import { SecurityAudit } from '../abuse/security-audit.js';
import { ALICE_KEY, demoAuthenticator, hwkSignatureKey, principalKey, signedRequest, type TestRequest } from '../testing/signed-request.spec-helper.js';
import { RateLimitedProblem } from '../errors/problems.js';
import { SignatureVerificationProblem } from '../errors/signature-verification.problem.js';
import { authenticatedCallerOf, SignedRequestGuard } from './signed-request.guard.js';

const alice = principalKey(ALICE_KEY);
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;

function setup(limits = { per_caller_per_minute: 100, per_source_per_minute: 100 }) {
  const appended: EventData[] = [];
  const store = { appendToStream: async (_stream: string, events: readonly EventData[]) => void appended.push(...events) } as unknown as EventStore;
  const { authenticator, clock } = demoAuthenticator();
  const audit = new SecurityAudit(store, new AuditDigestKey(randomBytes(32)), clock, silent);
  const guard = new SignedRequestGuard(authenticator, new RateLimiter(limits, clock), audit);
  return { guard, audit, appended };
}

/** The request as Fastify hands it to the guard: `url` is the target as received, `id` the request id. */
function contextFor(request: TestRequest, ip = '192.0.2.10'): { context: ExecutionContext; express: object } {
  const express = { ...request, ip, url: request.originalUrl, id: 'req-42' };
  const context = { switchToHttp: () => ({ getRequest: () => express, getResponse: () => ({}) }) } as unknown as ExecutionContext;
  return { context, express };
}

function aliceRequest(): TestRequest {
  return signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), body: '{"operation":"status"}' });
}

describe('SignedRequestGuard (spec 5, 8; DESIGN 3.2): source limit → signature → caller limit', () => {
  it('DESIGN 3.2: a correctly signed request passes and its caller is available to the route', async () => {
    const { guard, appended } = setup();
    const { context, express } = contextFor(aliceRequest());
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(authenticatedCallerOf(express)).toMatchObject({ kind: 'principal', id: 'alice' });
    expect(appended).toEqual([]);
  });

  it('spec 5.9: a refused signature is answered 401 and security-logged as signature_failed with its reason', async () => {
    const { guard, audit, appended } = setup();
    const request = aliceRequest();
    const { context } = contextFor({ ...request, rawBody: Buffer.from('{"operation":"terminate"}') });
    await expect(guard.canActivate(context)).rejects.toBeInstanceOf(SignatureVerificationProblem);
    await audit.flush();
    expect(appended.map((event) => event.data)).toEqual([
      expect.objectContaining({ kind: 'signature_failed', reason: 'content_digest_mismatch', source: '192.0.2.10', method: 'POST', path: '/mission', request_id: 'req-42' }),
    ]);
  });

  it('spec 8: the per-source limit answers 429 before any signature work', async () => {
    const { guard, audit, appended } = setup({ per_caller_per_minute: 100, per_source_per_minute: 1 });
    await guard.canActivate(contextFor(aliceRequest()).context);
    const unsigned = { method: 'POST', originalUrl: '/mission', headers: {} } as TestRequest;
    await expect(guard.canActivate(contextFor(unsigned).context)).rejects.toBeInstanceOf(RateLimitedProblem);
    await audit.flush();
    expect(appended.map((event) => event.data)).toEqual([expect.objectContaining({ kind: 'rate_limited', reason: 'per_source', source: '192.0.2.10' })]);
  });

  it('spec 5.5: the per-caller limit answers 429 and the audit names the caller', async () => {
    const { guard, audit, appended } = setup({ per_caller_per_minute: 1, per_source_per_minute: 100 });
    await guard.canActivate(contextFor(aliceRequest()).context);
    const again = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), body: '{"operation":"status","n":2}' });
    await expect(guard.canActivate(contextFor(again, '198.51.100.7').context)).rejects.toBeInstanceOf(RateLimitedProblem);
    await audit.flush();
    expect(appended.map((event) => event.data)).toEqual([
      expect.objectContaining({ kind: 'rate_limited', reason: 'per_caller', caller_key: 'principal:alice', caller_role: 'person' }),
    ]);
  });

  it('spec 5.2: a route without the guard has no caller', () => {
    expect(() => authenticatedCallerOf({})).toThrow('SignedRequestGuard');
  });
});

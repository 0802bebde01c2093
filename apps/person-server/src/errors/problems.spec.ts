import type { ArgumentsHost } from '@nestjs/common';
import { ErrorResponseFilter, type ProtocolError } from '@mission/platform';
import { parseDictionary, Token } from 'structured-headers';
import type { Logger } from 'pino';
import { PROBLEM_JSON } from './problem-error.js';
import {
  IdempotencyConflictProblem,
  InvalidMissionReferenceProblem,
  InvalidRequestProblem,
  InvalidTerminationReasonProblem,
  MissionNotFoundProblem,
  MissionTerminatedProblem,
  RateLimitedProblem,
  UnsupportedOperationProblem,
} from './problems.js';
import { SIGNATURE_FAILURE_REASONS, SignatureVerificationProblem } from './signature-verification.problem.js';

interface Sent {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

const silentLogger = { warn: () => undefined, error: () => undefined } as unknown as Logger;

/** Runs the platform's global filter on an error and captures what the client would receive. */
function send(error: ProtocolError): Sent {
  const sent: Sent = { status: 0, headers: {}, body: {} };
  const response = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return this;
    },
    raw: { headersSent: false },
    sent: false,
    header(name: string, value: string) {
      sent.headers[name.toLowerCase()] = value;
      return this;
    },
    send(text: string) {
      sent.body = JSON.parse(text) as Record<string, unknown>;
    },
  };
  const host = {
    switchToHttp: () => ({ getRequest: () => ({ method: 'POST', url: '/mission' }), getResponse: () => response }),
  } as unknown as ArgumentsHost;
  new ErrorResponseFilter(silentLogger).catch(error, host);
  return sent;
}

describe('spec 7 errors as application/problem+json (RFC 9457) with the spec error member', () => {
  it.each([
    ['invalid_request', 400, new InvalidRequestProblem()],
    ['invalid_mission_reference', 400, new InvalidMissionReferenceProblem()],
    ['unsupported_operation', 400, new UnsupportedOperationProblem()],
    ['invalid_termination_reason', 400, new InvalidTerminationReasonProblem()],
    ['idempotency_conflict', 409, new IdempotencyConflictProblem()],
    ['mission_not_found', 404, new MissionNotFoundProblem()],
    ['rate_limited', 429, new RateLimitedProblem(3)],
  ] as const)('spec 7: %s answers %d as problem+json with type, title, status and the error member', (code, status, error) => {
    const sent = send(error);
    expect(sent.status).toBe(status);
    expect(sent.headers['content-type']).toBe(`${PROBLEM_JSON}; charset=utf-8`);
    expect(sent.headers['cache-control']).toBe('no-store');
    expect(sent.body).toMatchObject({ type: 'about:blank', status, error: code });
    expect(typeof sent.body['title']).toBe('string');
    expect(typeof sent.body['detail']).toBe('string');
    expect(sent.body).not.toHaveProperty('error_description');
  });

  it('spec 7 rate_limited: 429 carries Retry-After in whole seconds, at least 1', () => {
    expect(send(new RateLimitedProblem(2.2)).headers['retry-after']).toBe('3');
    expect(send(new RateLimitedProblem(0)).headers['retry-after']).toBe('1');
  });

  it('spec 5.9 anti-oracle: mission_not_found is byte-identical whatever the cause', () => {
    expect(JSON.stringify(send(new MissionNotFoundProblem()))).toBe(JSON.stringify(send(new MissionNotFoundProblem())));
  });

  it('DESIGN 3.1 mission_terminated: 403 with mission_status "terminated" and termination_reason', () => {
    const sent = send(new MissionTerminatedProblem('revoked'));
    expect(sent.status).toBe(403);
    expect(sent.body).toEqual({
      type: 'about:blank',
      title: 'Forbidden',
      status: 403,
      error: 'mission_terminated',
      detail: 'the mission is terminated',
      mission_status: 'terminated',
      termination_reason: 'revoked',
    });
  });
});

describe('signature failures (spec 5.1, DESIGN 3.2): 401 with a Signature-Error header', () => {
  it('DESIGN 3.2: a replayed signature answers 401, Signature-Error error=invalid_signature with reason=replayed_signature', () => {
    const sent = send(new SignatureVerificationProblem('replayed_signature'));
    expect(sent.status).toBe(401);
    expect(sent.headers['content-type']).toBe(`${PROBLEM_JSON}; charset=utf-8`);
    expect(sent.headers['signature-error']).toBe('error=invalid_signature, reason=replayed_signature');
    expect(sent.body).toMatchObject({ type: 'about:blank', title: 'Unauthorized', status: 401, error: 'invalid_signature', signature_error: 'replayed_signature' });
  });

  it('Signature-Key draft: invalid_input lists the required components as required_input', () => {
    const error = new SignatureVerificationProblem('missing_required_component', { requiredInput: ['@method', '@authority', '@path', 'signature-key'] });
    expect(send(error).headers['signature-error']).toBe(
      'error=invalid_input, required_input=("@method" "@authority" "@path" "signature-key"), reason=missing_required_component',
    );
  });

  it('Signature-Key draft: unsupported_algorithm lists the supported algorithms', () => {
    const header = send(new SignatureVerificationProblem('unsupported_algorithm')).headers['signature-error']!;
    expect(header).toContain('supported_algorithms=("ecdsa-p256-sha256" "ed25519")');
  });

  it.each(SIGNATURE_FAILURE_REASONS.map((reason) => [reason]))(
    'spec 5.1: reason %s gives a parseable Signature-Error with short tokens only',
    (reason) => {
      const header = send(new SignatureVerificationProblem(reason)).headers['signature-error']!;
      const dictionary = parseDictionary(header);
      expect(dictionary.get('error')?.[0]).toBeInstanceOf(Token);
      expect(String(dictionary.get('reason')?.[0])).toBe(reason);
      expect(header.length).toBeLessThan(200);
    },
  );

  it('spec 5.1: the detail never carries the cause', () => {
    const error = new SignatureVerificationProblem('invalid_agent_token', { cause: new Error('kid abc123 secret internals') });
    expect(JSON.stringify(send(error))).not.toContain('abc123');
  });
});

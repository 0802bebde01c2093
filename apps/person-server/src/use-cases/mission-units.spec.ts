import { randomBytes } from 'node:crypto';
import { WrongExpectedRevisionError } from '@mission/event-store';
import {
  IdempotencyConflictError,
  InvalidMissionReferenceError,
  InvalidRequestError,
  InvalidTerminationReasonError,
  MissionNotFoundError,
  MissionTerminatedError,
  ProposalAlreadyDecidedError,
  ProposalNotFoundError,
} from '@mission/ps-domain';
import { AuditDigestKey } from '../abuse/audit-digest-key.js';
import { ProblemError } from '../errors/problem-error.js';
import { toProblem } from '../errors/problem-table.js';
import { KeyedMutex } from '@mission/es-kit';
import { ProbeLimiter } from '../abuse/probe-limiter.js';
import { TreeCursors } from './read-delegation-tree/tree-cursor.js';

const S256 = 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg';

describe('ps-domain refusals as problem+json (spec 7), mapped in one place', () => {
  it.each([
    ['invalid_request', 400, new InvalidRequestError('description must be text')],
    ['invalid_request', 400, new ProposalAlreadyDecidedError()],
    ['invalid_mission_reference', 400, new InvalidMissionReferenceError()],
    ['invalid_termination_reason', 400, new InvalidTerminationReasonError()],
    ['idempotency_conflict', 409, new IdempotencyConflictError()],
    ['mission_not_found', 404, new MissionNotFoundError('not_authorized')],
    ['mission_terminated', 403, new MissionTerminatedError('revoked')],
    ['not_found', 404, new ProposalNotFoundError('not_owner')],
  ] as const)('spec 7: %s (%d)', (code, status, error) => {
    const problem = toProblem(error) as ProblemError;
    expect(problem).toBeInstanceOf(ProblemError);
    expect(problem.toBody()).toMatchObject({ error: code, status });
  });

  it('spec 5.9: mission_not_found is the same body whether absent or not authorized', () => {
    expect((toProblem(new MissionNotFoundError('absent')) as ProblemError).toBody()).toEqual((toProblem(new MissionNotFoundError('not_authorized')) as ProblemError).toBody());
  });

  it('an exhausted concurrency retry is a 503 to retry; a bug passes through unchanged', () => {
    expect((toProblem(new WrongExpectedRevisionError('psmission-x', 1n, 2n)) as ProblemError).status).toBe(503);
    const bug = new Error('bug');
    expect(toProblem(bug)).toBe(bug);
  });
});

describe('delegation_tree cursor (spec 4.3 rule 1, DESIGN 3.3)', () => {
  const cursors = new TreeCursors(new AuditDigestKey(randomBytes(32)));
  const scope = { callerKey: 'principal:alice', missionS256: S256 };
  const now = new Date('2026-03-01T12:00:00Z');

  it('DESIGN 3.3: opens to its offset for the same caller and mission within 5 minutes', () => {
    const cursor = cursors.issue(scope, 50, now);
    expect(cursors.open(cursor, scope, new Date(now.getTime() + 299_000))).toBe(50);
    expect(cursor).not.toContain('alice');
    expect(cursor).not.toContain(S256);
  });

  it.each([
    ['expired', (c: string) => c, scope, 300_000],
    ['another caller', (c: string) => c, { ...scope, callerKey: 'principal:bob' }, 0],
    ['another mission', (c: string) => c, { ...scope, missionS256: `${S256.slice(0, -1)}w` }, 0],
    ['a changed payload', (c: string) => `${Buffer.from('{"o":0,"e":99999999999}').toString('base64url')}.${c.split('.')[1]}`, scope, 0],
    ['a key from another deployment', () => new TreeCursors(new AuditDigestKey(randomBytes(32))).issue(scope, 50, now), scope, 0],
  ] as const)('spec 4.3 rule 1: refuses %s with invalid_request', (_, change, openScope, laterMs) => {
    const cursor = change(cursors.issue(scope, 50, now));
    expect(() => cursors.open(cursor, openScope, new Date(now.getTime() + laterMs))).toThrow(expect.objectContaining({ code: 'invalid_request', status: 400 }));
  });
});

describe('KeyedMutex', () => {
  it('runs work for one key one at a time, other keys in parallel', async () => {
    const mutex = new KeyedMutex();
    const started: string[] = [];
    const finished: string[] = [];
    // a1 holds key a until the test lets it go (no timers: their order would depend on the machine's speed).
    let releaseA1!: () => void;
    const a1Released = new Promise<void>((resolve) => (releaseA1 = resolve));
    const step = (name: string, until: Promise<void> = Promise.resolve()) => async () => {
      started.push(name);
      await until;
      finished.push(name);
    };
    const a = Promise.all([mutex.run('a', step('a1', a1Released)), mutex.run('a', step('a2'))]);
    // Another key runs to completion while a1 holds key a; a2 does not start meanwhile.
    await mutex.run('b', step('b1'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['a1', 'b1']);
    expect(finished).toEqual(['b1']);
    releaseA1();
    await a;
    expect(started).toEqual(['a1', 'b1', 'a2']);
    expect(finished).toEqual(['b1', 'a1', 'a2']);
  });

  it('a failing run releases the key', async () => {
    const mutex = new KeyedMutex();
    await expect(mutex.run('a', () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(mutex.run('a', () => Promise.resolve(1))).resolves.toBe(1);
  });
});

describe('ProbeLimiter (spec 5.9, 8: repeated failed lookups are rate limited)', () => {
  it('spec 5.9: after the allowance of failures the caller is refused before lookup with 429, and released after Retry-After', () => {
    let nowMs = Date.parse('2026-03-01T12:00:00Z');
    const limiter = new ProbeLimiter({ now: () => new Date(nowMs) }, 3);
    for (let n = 0; n < 3; n++) {
      limiter.check('agent:x');
      limiter.recordFailure('agent:x');
    }
    limiter.check('agent:x');
    limiter.recordFailure('agent:x');
    expect(() => limiter.check('agent:x')).toThrow(expect.objectContaining({ code: 'rate_limited', status: 429 }));
    expect(() => limiter.check('principal:alice')).not.toThrow();
    nowMs += 20_000;
    expect(() => limiter.check('agent:x')).not.toThrow();
  });
});

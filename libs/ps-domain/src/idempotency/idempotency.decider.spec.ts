import { createHash } from 'node:crypto';
import { fold, given } from '@mission/decider';
import { IdempotencyConflictError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { AGENT, at, MISSION_S256, OTHER_S256, REQUEST_ID, T1, T2 } from '../testing/fixtures.js';
import { idempotencyKey, idempotencyStreamName, requestContentDigest, terminateRequestContent } from './idempotency-key.js';
import type { ClaimRequest, RecordRequestResult } from './idempotency.commands.js';
import { idempotencyDecider } from './idempotency.decider.js';
import type { RequestClaimed, RequestResultRecorded } from './idempotency.events.js';
import { idempotentReplay, IDEMPOTENCY_MIN_RETENTION_SECONDS, isRetained } from './idempotency.state.js';

const CALLER = { id: AGENT, role: 'agent' };
const BODY = { mission_s256: MISSION_S256, reason: 'revoked', request_id: REQUEST_ID };
const DIGEST = requestContentDigest(terminateRequestContent(BODY));
const RESULT = {
  mission_s256: MISSION_S256,
  mission_status: 'terminated',
  terminated_at: T1.toISOString(),
  termination_reason: 'revoked',
  token_residual: { tracked: 1, revocation_attempted: 1, revocation_confirmed: 0, residual_until: '2026-11-22T10:05:00.000Z', complete: false },
};

const record = (overrides: Partial<RecordRequestResult> = {}): RecordRequestResult => ({ type: 'RecordRequestResult', caller: CALLER, requestId: REQUEST_ID, contentDigest: DIGEST, result: RESULT, now: T1, ...overrides });

const recorded: RequestResultRecorded = {
  type: 'RequestResultRecorded',
  data: { key: idempotencyKey(CALLER, REQUEST_ID), caller: CALLER, request_id: REQUEST_ID, content_digest: DIGEST, result: RESULT, recorded_at: T1.toISOString() },
};

describe('idempotency key and content digest (spec 4.2 rule 2, spec 5.6, DESIGN 1 psidem-<digest>)', () => {
  it('DESIGN 1: the key is base64url SHA-256 of the JCS of {typ, caller, request_id}; the stream is psidem-<key>', () => {
    const expected = createHash('sha256')
      .update(`{"caller":{"id":"${AGENT}","role":"agent"},"request_id":"${REQUEST_ID}","typ":"ps-idempotency-key"}`)
      .digest('base64url');
    expect(idempotencyKey(CALLER, REQUEST_ID)).toBe(expected);
    expect(idempotencyStreamName(CALLER, REQUEST_ID)).toBe(`psidem-${expected}`);
  });

  it('spec 4.2 rule 2: request_id is scoped to the authenticated caller', () => {
    const keys = new Set([
      idempotencyKey(CALLER, REQUEST_ID),
      idempotencyKey({ id: 'alice', role: 'person' }, REQUEST_ID),
      idempotencyKey({ id: AGENT, role: 'admin' }, REQUEST_ID),
      idempotencyKey(CALLER, `${REQUEST_ID}x`),
    ]);
    expect(keys.size).toBe(4);
    expect(() => idempotencyKey({ id: '', role: 'agent' }, REQUEST_ID)).toThrow(InvalidCommandError);
  });

  it('spec 5.6: the content digest ignores member order, absent members and unknown members, but not values', () => {
    const reordered = requestContentDigest(terminateRequestContent({ request_id: REQUEST_ID, reason: 'revoked', mission_s256: MISSION_S256, purpose: undefined, extra: 'ignored' } as never));
    expect(reordered).toBe(DIGEST);
    expect(DIGEST).toBe(
      createHash('sha256')
        .update(`{"mission_s256":"${MISSION_S256}","operation":"terminate","reason":"revoked","request_id":"${REQUEST_ID}"}`)
        .digest('base64url'),
    );
    for (const change of [{ reason: 'completed' }, { mission_s256: OTHER_S256 }, { purpose: 'p' }, { replacement_s256: OTHER_S256 }]) {
      expect(requestContentDigest(terminateRequestContent({ ...BODY, ...change }))).not.toBe(DIGEST);
    }
  });

  it('refuses members that are not JSON', () => {
    expect(() => terminateRequestContent({ ...BODY, reason: Number.NaN })).toThrow(InvalidCommandError);
    expect(() => requestContentDigest([] as never)).toThrow(InvalidCommandError);
  });
});

describe('Idempotency decider (spec 4.2 rule 2)', () => {
  it('spec 4.2 rule 2: the first request records its content digest and result', () => {
    const state = given(idempotencyDecider).when(record()).then([recorded]);
    expect(state).toMatchObject({ status: 'recorded', contentDigest: DIGEST, result: RESULT, recordedAt: T1 });
  });

  it('spec 4.2 rule 2: an identical repeat returns the original result and decides nothing', () => {
    const state = fold(idempotencyDecider, [recorded]);
    expect(idempotentReplay(state, DIGEST)).toEqual(RESULT);
    given(idempotencyDecider, [recorded]).when(record({ now: T2, result: { other: 'result' } })).thenNothingHappens();
  });

  it('spec 4.2 rule 2: reusing request_id with different content is idempotency_conflict (409)', () => {
    const other = requestContentDigest(terminateRequestContent({ ...BODY, reason: 'completed' }));
    expect(() => idempotentReplay(fold(idempotencyDecider, [recorded]), other)).toThrow(IdempotencyConflictError);
    given(idempotencyDecider, [recorded])
      .when(record({ contentDigest: other }))
      .thenThrows(IdempotencyConflictError, (error) => expect(error).toMatchObject({ code: 'idempotency_conflict', status: 409, message: 'request_id was already used with different content' }));
  });

  it('spec 4.2 rule 2: a first request has nothing to replay', () => {
    expect(idempotentReplay(idempotencyDecider.initialState, DIGEST)).toBeUndefined();
  });

  it('the first record stands even if a second were stored', () => {
    const second: RequestResultRecorded = { type: 'RequestResultRecorded', data: { ...recorded.data, content_digest: requestContentDigest({ x: 1 }), recorded_at: T2.toISOString() } };
    expect(fold(idempotencyDecider, [recorded, second])).toMatchObject({ contentDigest: DIGEST, recordedAt: T1 });
  });

  it.each([
    ['another caller on this stream', { caller: { id: 'alice', role: 'person' } }],
    ['a digest not from requestContentDigest', { contentDigest: 'abc' }],
    ['a result that is not plain JSON', { result: { at: new Date(0) } as never }],
    ['an invalid now', { now: new Date(Number.NaN) }],
  ])('refuses %s as a bug at the caller', (_, change) => {
    given(idempotencyDecider, [recorded]).when(record(change)).thenThrows(InvalidCommandError);
  });

  describe('retention (spec 4.2 rule 2, spec 8: at least 24 hours)', () => {
    const state = fold(idempotencyDecider, [recorded]);

    it('spec 8: retained for the configured period counted from recorded_at, by default for good', () => {
      expect(isRetained(state, at('2026-11-23T09:59:59.999Z'), IDEMPOTENCY_MIN_RETENTION_SECONDS)).toBe(true);
      expect(isRetained(state, at('2026-11-23T10:00:00.000Z'), IDEMPOTENCY_MIN_RETENTION_SECONDS)).toBe(false);
      expect(isRetained(state, at('2036-11-22T10:00:00Z'))).toBe(true);
      expect(isRetained(idempotencyDecider.initialState, T1)).toBe(false);
    });

    it('spec 8: a retention under 24 hours is refused', () => {
      expect(() => isRetained(state, T2, IDEMPOTENCY_MIN_RETENTION_SECONDS - 1)).toThrow(InvalidCommandError);
      expect(() => isRetained(state, T2, Number.NaN)).toThrow(InvalidCommandError);
    });
  });
});

describe('Idempotency claim before the request acts (spec 4.2 rule 2, ADR 0017)', () => {
  const claim = (overrides: Partial<ClaimRequest> = {}): ClaimRequest => ({ type: 'ClaimRequest', caller: CALLER, requestId: REQUEST_ID, contentDigest: DIGEST, now: T1, ...overrides });
  const claimed: RequestClaimed = {
    type: 'RequestClaimed',
    data: { key: idempotencyKey(CALLER, REQUEST_ID), caller: CALLER, request_id: REQUEST_ID, content_digest: DIGEST, claimed_at: T1.toISOString() },
  };
  const other = requestContentDigest(terminateRequestContent({ ...BODY, mission_s256: OTHER_S256 }));

  it('spec 4.2 rule 2: the first request claims (caller, request_id) for its content; nothing to replay yet', () => {
    const state = given(idempotencyDecider).when(claim()).then([claimed]);
    expect(state).toMatchObject({ status: 'claimed', contentDigest: DIGEST, claimedAt: T1 });
    expect(idempotentReplay(state, DIGEST)).toBeUndefined();
  });

  it('spec 4.2 rule 2: a second claim with other content (another mission) is idempotency_conflict, before it acts', () => {
    given(idempotencyDecider, [claimed]).when(claim({ contentDigest: other })).thenThrows(IdempotencyConflictError);
    expect(() => idempotentReplay(fold(idempotencyDecider, [claimed]), other)).toThrow(IdempotencyConflictError);
  });

  it('spec 4.2 rule 2: the same content claims nothing again (it completes the claimed request)', () => {
    given(idempotencyDecider, [claimed]).when(claim({ now: T2 })).thenNothingHappens();
    given(idempotencyDecider, [claimed, recorded]).when(claim({ now: T2 })).thenNothingHappens();
  });

  it('spec 4.2 rule 2: the claimed content records its result; an identical repeat then replays it', () => {
    const state = given(idempotencyDecider, [claimed]).when(record()).then([recorded]);
    expect(idempotentReplay(state, DIGEST)).toEqual(RESULT);
  });

  it('spec 4.2 rule 2: a result of other content never lands on a claim (conflict), and a stray one is ignored by the fold', () => {
    given(idempotencyDecider, [claimed]).when(record({ contentDigest: other })).thenThrows(IdempotencyConflictError);
    const stray: RequestResultRecorded = { type: 'RequestResultRecorded', data: { ...recorded.data, content_digest: other } };
    expect(fold(idempotencyDecider, [claimed, stray])).toMatchObject({ status: 'claimed', contentDigest: DIGEST });
  });

  it('spec 8: a claim without a result is retained from its claim', () => {
    expect(isRetained(fold(idempotencyDecider, [claimed]), at('2036-11-22T10:00:00Z'))).toBe(true);
  });
});

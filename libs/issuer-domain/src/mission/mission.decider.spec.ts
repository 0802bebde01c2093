import { given } from '@mission/decider';
import { fold } from '@mission/decider';
import { authorityHash } from '../authority-set/authority-hash.js';
import { InvalidCommandError } from '../shared/errors.js';
import {
  ADMIN,
  APPROVER,
  at,
  AUTHORITY_HASH,
  CLIENT,
  createCommand,
  EXPIRES_AT,
  EXPIRY_PROCESS,
  INTENT,
  ISSUER,
  MISSION_ID,
  missionCreated,
  OTHER_MISSION_ID,
  T0,
} from '../testing/fixtures.js';
import { InvalidLifecycleRequestError } from './invalid-lifecycle-request.error.js';
import type { ChangeMissionLifecycle } from './mission.commands.js';
import { missionDecider } from './mission.decider.js';
import {
  InvalidTransitionError,
  MissionAlreadyExistsError,
  MissionNotActiveError,
  MissionNotFoundError,
  MissionNotYetExpiredError,
  NonceReuseError,
  StaleVersionError,
} from './mission.errors.js';
import type { MissionEvent, MissionLifecycleEvent } from './mission.events.js';
import { assertDerivable, effectiveState, lifecycleResult, missionStatusView, type MissionState } from './mission.state.js';
import type { LifecycleOperation, MissionLifecycleState } from './mission-lifecycle.js';
import type { ParentLink } from './parent-link.js';

const T1 = at('2026-11-22T10:00:00.000Z');
const T2 = at('2026-11-22T11:00:00.000Z');
const T3 = at('2026-11-22T12:00:00.000Z');

const op = (operation: LifecycleOperation, extra: Partial<ChangeMissionLifecycle> = {}): ChangeMissionLifecycle => ({
  type: 'ChangeMissionLifecycle',
  operation,
  actor: CLIENT,
  reason: `please ${operation}`,
  now: T1,
  ...extra,
});

const EVENT_TYPES = { suspend: 'MissionSuspended', resume: 'MissionResumed', revoke: 'MissionRevoked', complete: 'MissionCompleted' } as const;

function transition(type: LifecycleOperation, previous: MissionLifecycleState, state: MissionLifecycleState, version: number, extra: Record<string, unknown> = {}, now = T1): MissionLifecycleEvent {
  return {
    type: EVENT_TYPES[type],
    data: { mission_id: MISSION_ID, actor: CLIENT, reason: `please ${type}`, previous_state: previous, state, version, occurred_at: now.toISOString(), ...extra },
  } as MissionLifecycleEvent;
}

const suspended = transition('suspend', 'active', 'suspended', 2);
const revoked = transition('revoke', 'active', 'revoked', 2);
const completed = transition('complete', 'active', 'completed', 2);
const expired: MissionEvent = {
  type: 'MissionExpired',
  data: {
    mission_id: MISSION_ID,
    actor: EXPIRY_PROCESS,
    reason: 'expires_at reached',
    previous_state: 'active',
    state: 'expired',
    version: 2,
    occurred_at: EXPIRES_AT.toISOString(),
    expires_at: EXPIRES_AT.toISOString(),
  },
};

describe('Mission decider', () => {
  describe('create (DESIGN 2.3: approval creates the mission active)', () => {
    it('DESIGN 2.3: creates an active mission at version 1 with the normalised authority set', () => {
      const unnormalised = [{ ...missionCreated.data.authority_set[0]!, actions: ['invoices.read', 'invoices.list', 'invoices.read'] }];
      const state = given(missionDecider).when(createCommand({ authoritySet: unnormalised })).then([missionCreated]);
      expect(state).toMatchObject({ lifecycle: 'active', version: 1, missionId: MISSION_ID, authorityHash: AUTHORITY_HASH, expiresAt: EXPIRES_AT });
    });

    it('spec 2.3: carries the parent member of a child mission unchanged', () => {
      const parent: ParentLink = { id: OTHER_MISSION_ID, issuer: ISSUER, authority_hash: AUTHORITY_HASH, depth: 1, cascade_mode: 'immediate', delegation_id: 'del-1' };
      const state = given(missionDecider)
        .when(createCommand({ parent }))
        .then([{ ...missionCreated, data: { ...missionCreated.data, parent } }]);
      expect(state).toMatchObject({ parent });
    });

    it('spec 2.1: a child record holds the child_actor object and the fan-out policy result', () => {
      const parent: ParentLink = { id: OTHER_MISSION_ID, issuer: ISSUER, authority_hash: AUTHORITY_HASH, depth: 1, cascade_mode: 'immediate', delegation_id: 'del-1' };
      const command = createCommand({ parent });
      const child = { actor: { sub: command.clientId, sub_profile: 'ai_agent' }, fanout: [{ parent_entry: 0, active_children: 2, max_children: 3 }] };
      given(missionDecider)
        .when({ ...command, child })
        .then([{ ...missionCreated, data: { ...missionCreated.data, parent, child_actor: child.actor, fanout: child.fanout } }]);
    });

    it.each<[string, (clientId: string) => Record<string, unknown>]>([
      ['without a parent (a root mission has no child actor)', (clientId) => ({ child: { actor: { sub: clientId }, fanout: [] } })],
      ['whose actor sub is not the client_id', () => ({ parent: { id: OTHER_MISSION_ID, issuer: ISSUER, authority_hash: AUTHORITY_HASH, depth: 1, cascade_mode: 'immediate' }, child: { actor: { sub: 'someone-else' }, fanout: [] } })],
      ['with a malformed fan-out result', (clientId) => ({ parent: { id: OTHER_MISSION_ID, issuer: ISSUER, authority_hash: AUTHORITY_HASH, depth: 1, cascade_mode: 'immediate' }, child: { actor: { sub: clientId }, fanout: [{ parent_entry: -1, active_children: 1 }] } })],
    ])('spec 2.1: refuses a child record %s', (_, change) => {
      const command = createCommand();
      given(missionDecider).when({ ...command, ...change(command.clientId) } as never).thenThrows(InvalidCommandError);
    });

    it.each([
      ['the parent issuer differs (spec 2.3)', { issuer: 'https://other.example' }],
      ['the parent is the mission itself', { id: MISSION_ID }],
      ['the parent depth is 0 (spec 2.3)', { depth: 0 }],
      ['the cascade mode is unknown', { cascade_mode: 'lazy' }],
      ['the parent authority_hash is malformed', { authority_hash: 'sha-256:x' }],
    ])('spec 2.3: refuses a parent link when %s', (_, change) => {
      const parent = { id: OTHER_MISSION_ID, issuer: ISSUER, authority_hash: AUTHORITY_HASH, depth: 1, cascade_mode: 'immediate', ...change } as ParentLink;
      given(missionDecider).when(createCommand({ parent })).thenThrows(InvalidCommandError);
    });

    it('refuses to create a mission twice', () => {
      given(missionDecider, [missionCreated]).when(createCommand()).thenThrows(MissionAlreadyExistsError);
    });

    it('DESIGN 2.3: refuses an authority hash that does not match the set and issuer', () => {
      given(missionDecider).when(createCommand({ authorityHash: authorityHash('https://other.example', missionCreated.data.authority_set) })).thenThrows(InvalidCommandError);
      given(missionDecider).when(createCommand({ issuer: 'https://other.example' })).thenThrows(InvalidCommandError);
    });

    it.each([
      ['a malformed mission id', { missionId: 'msn_short' }],
      ['expires_at not after now', { expiresAt: T0 }],
      ['expires_at after the intent expires_at', { expiresAt: at('2026-11-22T17:00:00.001Z') }],
      ['an invalid now', { now: new Date(Number.NaN) }],
      ['an empty client id', { clientId: '' }],
      ['an approver without role', { approvedBy: { id: 'alice', role: '' } }],
      ['an invalid authority set', { authoritySet: [] }],
      ['a malformed intent', { intent: { ...INTENT, expires_at: 'tomorrow' } }],
    ])('refuses %s', (_, change) => {
      given(missionDecider).when(createCommand(change)).thenThrows(InvalidCommandError);
    });

    it('accepts an expiry earlier than the intent asked for (a child capped by its parent, DESIGN 2.4)', () => {
      const state = given(missionDecider)
        .when(createCommand({ expiresAt: T3 }))
        .then([{ ...missionCreated, data: { ...missionCreated.data, expires_at: T3.toISOString() } }]);
      expect(state).toMatchObject({ expiresAt: T3 });
    });
  });

  describe('lifecycle transitions (DESIGN 2.3; table in mission-lifecycle.ts)', () => {
    it.each([
      ['suspend', 'suspended'],
      ['revoke', 'revoked'],
      ['complete', 'completed'],
    ] as const)('active → %s → %s, version 2', (operation, next) => {
      const state = given(missionDecider, [missionCreated]).when(op(operation)).then([transition(operation, 'active', next, 2)]);
      expect(state).toMatchObject({ lifecycle: next, version: 2 });
    });

    it.each([
      ['resume', 'active'],
      ['revoke', 'revoked'],
      ['complete', 'completed'],
    ] as const)('suspended → %s → %s, version 3', (operation, next) => {
      const state = given(missionDecider, [missionCreated, suspended]).when(op(operation, { now: T2 })).then([transition(operation, 'suspended', next, 3, {}, T2)]);
      expect(state).toMatchObject({ lifecycle: next, version: 3 });
    });

    it('DESIGN 2.3: each committed transition increments version (suspend, resume, suspend, revoke → 5)', () => {
      const history: MissionEvent[] = [missionCreated, suspended, transition('resume', 'suspended', 'active', 3), transition('suspend', 'active', 'suspended', 4)];
      const state = given(missionDecider, history).when(op('revoke')).then([transition('revoke', 'suspended', 'revoked', 5)]);
      expect(state).toMatchObject({ version: 5, lifecycle: 'revoked' });
    });

    it('refuses resume of an active mission and suspend of a suspended one with InvalidTransitionError', () => {
      given(missionDecider, [missionCreated])
        .when(op('resume'))
        .thenThrows(InvalidTransitionError, (error) => expect(error).toMatchObject({ from: 'active', operation: 'resume' }));
      given(missionDecider, [missionCreated, suspended])
        .when(op('suspend'))
        .thenThrows(InvalidTransitionError, (error) => expect(error).toMatchObject({ from: 'suspended', operation: 'suspend' }));
    });

    describe.each([
      ['revoked', revoked, 'mission_revoked'],
      ['completed', completed, 'mission_completed'],
      ['expired', expired, 'mission_expired'],
    ] as const)('DESIGN 2.3: a %s mission never changes', (_, terminal, code) => {
      it.each(['suspend', 'resume', 'revoke', 'complete'] as const)('%s is refused with MissionNotActive', (operation) => {
        given(missionDecider, [missionCreated, terminal])
          .when(op(operation, { now: T2 }))
          .thenThrows(MissionNotActiveError, (error) => expect((error as MissionNotActiveError).missionError).toBe(code));
      });

      it('expire is a no-op', () => {
        given(missionDecider, [missionCreated, terminal]).when({ type: 'ExpireMission', actor: EXPIRY_PROCESS, now: at('2026-11-22T18:00:00Z') }).thenNothingHappens();
      });
    });

    it('refuses every operation on a missing mission with MissionNotFoundError', () => {
      given(missionDecider).when(op('revoke')).thenThrows(MissionNotFoundError);
      given(missionDecider).when({ type: 'ExpireMission', actor: EXPIRY_PROCESS, now: T1 }).thenThrows(MissionNotFoundError);
    });

    it('an administrator acts through the same transitions, recorded as the actor', () => {
      given(missionDecider, [missionCreated])
        .when(op('revoke', { actor: ADMIN }))
        .then([{ ...revoked, data: { ...revoked.data, actor: ADMIN } } as MissionLifecycleEvent]);
    });
  });

  describe('expiry before stored state (DESIGN 2.3)', () => {
    const afterExpiry = at('2026-11-22T17:00:00.000Z');

    it('DESIGN 2.3: a revoke of an expired but not yet recorded mission fails as expired', () => {
      given(missionDecider, [missionCreated])
        .when(op('revoke', { now: afterExpiry }))
        .thenThrows(MissionNotActiveError, (error) => expect(error).toMatchObject({ state: 'expired', missionError: 'mission_expired' }));
    });

    it.each(['suspend', 'resume', 'complete'] as const)('DESIGN 2.3: %s of a suspended mission past expires_at fails as expired', (operation) => {
      given(missionDecider, [missionCreated, suspended])
        .when(op(operation, { now: afterExpiry }))
        .thenThrows(MissionNotActiveError, (error) => expect(error).toMatchObject({ missionError: 'mission_expired' }));
    });

    it('DESIGN 2.3: the expiry check comes before compare-and-set', () => {
      given(missionDecider, [missionCreated])
        .when(op('suspend', { now: afterExpiry, expectedVersion: 7 }))
        .thenThrows(MissionNotActiveError);
    });

    it('DESIGN 2.3, spec 3.1 (decision 0020): effectiveState is expired once now ≥ expires_at, unless a terminal state is recorded — that one never changes', () => {
      const active = fold(missionDecider, [missionCreated]);
      expect(effectiveState(active, at('2026-11-22T16:59:59.999Z'))).toBe('active');
      expect(effectiveState(active, afterExpiry)).toBe('expired');
      expect(effectiveState(fold(missionDecider, [missionCreated, suspended]), afterExpiry)).toBe('expired');
      expect(effectiveState(fold(missionDecider, [missionCreated, suspended]), T2)).toBe('suspended');
      expect(effectiveState(fold(missionDecider, [missionCreated, revoked]), T2)).toBe('revoked');
      expect(effectiveState(fold(missionDecider, [missionCreated, revoked]), afterExpiry)).toBe('revoked');
      expect(effectiveState(fold(missionDecider, [missionCreated, completed]), afterExpiry)).toBe('completed');
      expect(() => effectiveState(missionDecider.initialState, T1)).toThrow(MissionNotFoundError);
    });

    it('DESIGN 2.3: only exactly active permits derivation', () => {
      expect(() => assertDerivable(fold(missionDecider, [missionCreated]), T1)).not.toThrow();
      const cases: [MissionEvent[], Date, string][] = [
        [[missionCreated], afterExpiry, 'mission_expired'],
        [[missionCreated, suspended], T2, 'mission_suspended'],
        [[missionCreated, revoked], T2, 'mission_revoked'],
        [[missionCreated, completed], T2, 'mission_completed'],
        [[missionCreated, expired], T2, 'mission_expired'],
      ];
      for (const [history, now, code] of cases) {
        expect(() => assertDerivable(fold(missionDecider, history), now)).toThrow(expect.objectContaining({ missionError: code }) as unknown as Error);
      }
      expect(() => assertDerivable(missionDecider.initialState, T1)).toThrow(MissionNotFoundError);
    });

    it('reserved states map to their mission_error codes (superseded, cascaded: spec 3.1)', () => {
      expect(new MissionNotActiveError('superseded').missionError).toBe('mission_superseded');
      expect(new MissionNotActiveError('cascaded').missionError).toBe('mission_cascaded');
    });
  });

  describe('expire (mission-expiry process manager)', () => {
    it('records MissionExpired at expires_at from active', () => {
      const state = given(missionDecider, [missionCreated]).when({ type: 'ExpireMission', actor: EXPIRY_PROCESS, now: EXPIRES_AT }).then([expired]);
      expect(state).toMatchObject({ lifecycle: 'expired', version: 2 });
    });

    it('records MissionExpired from suspended (spec 3.2: expiry takes precedence over suspended)', () => {
      const later = at('2026-11-22T17:00:05.000Z');
      given(missionDecider, [missionCreated, suspended])
        .when({ type: 'ExpireMission', actor: EXPIRY_PROCESS, now: later })
        .then([{ type: 'MissionExpired', data: { ...expired.data, previous_state: 'suspended', version: 3, occurred_at: later.toISOString() } } as MissionEvent]);
    });

    it('refuses to expire early (clock skew) with MissionNotYetExpiredError, an InvalidTransitionError', () => {
      given(missionDecider, [missionCreated]).when({ type: 'ExpireMission', actor: EXPIRY_PROCESS, now: at('2026-11-22T16:59:59.999Z') }).thenThrows(MissionNotYetExpiredError);
      expect(new MissionNotYetExpiredError('active', EXPIRES_AT.toISOString())).toBeInstanceOf(InvalidTransitionError);
    });
  });

  describe('compare-and-set (DESIGN 2.1 expected_version)', () => {
    it('applies the operation when expected_version equals the current version and records it', () => {
      given(missionDecider, [missionCreated])
        .when(op('suspend', { expectedVersion: 1 }))
        .then([transition('suspend', 'active', 'suspended', 2, { expected_version: 1 })]);
    });

    it('refuses a stale expected_version with StaleVersionError (expected vs actual)', () => {
      given(missionDecider, [missionCreated, suspended])
        .when(op('resume', { expectedVersion: 1 }))
        .thenThrows(StaleVersionError, (error) => expect(error).toMatchObject({ expected: 1, actual: 2 }));
    });
  });

  describe('idempotency nonce (DESIGN 2.1: per client + mission)', () => {
    const suspendedWithNonce = transition('suspend', 'active', 'suspended', 2, { nonce: 'n-1' });

    it('records the nonce with the transition', () => {
      given(missionDecider, [missionCreated]).when(op('suspend', { nonce: 'n-1' })).then([suspendedWithNonce]);
    });

    it('DESIGN 2.1: a repeated nonce with the same operation decides nothing and returns the same result', () => {
      const history = [missionCreated, suspendedWithNonce];
      given(missionDecider, history).when(op('suspend', { nonce: 'n-1', now: T2 })).thenNothingHappens();
      expect(lifecycleResult(fold(missionDecider, history), { actor: CLIENT, nonce: 'n-1' })).toEqual({ state: 'suspended', version: 2 });
    });

    it('DESIGN 2.1: the repeat returns the first result even after the mission moved on (resumed, then revoked)', () => {
      const history = [missionCreated, suspendedWithNonce, transition('resume', 'suspended', 'active', 3), transition('revoke', 'active', 'revoked', 4)];
      given(missionDecider, history).when(op('suspend', { nonce: 'n-1', now: T3 })).thenNothingHappens();
      expect(lifecycleResult(fold(missionDecider, history), { actor: CLIENT, nonce: 'n-1' })).toEqual({ state: 'suspended', version: 2 });
      expect(lifecycleResult(fold(missionDecider, history), { actor: CLIENT })).toEqual({ state: 'revoked', version: 4 });
    });

    it('DESIGN 2.1: the repeat is answered even after expiry and without re-checking expected_version', () => {
      given(missionDecider, [missionCreated, suspendedWithNonce]).when(op('suspend', { nonce: 'n-1', now: EXPIRES_AT, expectedVersion: 1 })).thenNothingHappens();
    });

    it('DESIGN 2.1: a repeated nonce with a different operation is refused with NonceReuseError', () => {
      given(missionDecider, [missionCreated, suspendedWithNonce])
        .when(op('resume', { nonce: 'n-1' }))
        .thenThrows(NonceReuseError, (error) => expect(error).toMatchObject({ recordedOperation: 'suspend', operation: 'resume' }));
    });

    it('DESIGN 2.1: nonces are scoped per client: another actor may use the same value', () => {
      given(missionDecider, [missionCreated, suspendedWithNonce])
        .when(op('resume', { nonce: 'n-1', actor: ADMIN }))
        .then([{ ...transition('resume', 'suspended', 'active', 3, { nonce: 'n-1' }), data: { ...transition('resume', 'suspended', 'active', 3, { nonce: 'n-1' }).data, actor: ADMIN } } as MissionLifecycleEvent]);
    });

    it('a refused request does not use up its nonce', () => {
      const state = given(missionDecider, [missionCreated]).when(op('resume', { nonce: 'n-2' }));
      state.thenThrows(InvalidTransitionError);
      given(missionDecider, [missionCreated]).when(op('suspend', { nonce: 'n-2' })).then([transition('suspend', 'active', 'suspended', 2, { nonce: 'n-2' })]);
    });
  });

  describe('request values', () => {
    it.each([
      ['an empty reason', { reason: '' }],
      ['a blank reason', { reason: '   ' }],
      ['a reason over 1000 characters', { reason: 'x'.repeat(1001) }],
      ['a reason with control characters', { reason: 'a\u0007' }],
      ['an empty nonce', { nonce: '' }],
      ['a nonce with spaces', { nonce: 'a b' }],
      ['a nonce over 128 characters', { nonce: 'n'.repeat(129) }],
      ['expected_version 0', { expectedVersion: 0 }],
      ['a fractional expected_version', { expectedVersion: 1.5 }],
    ])('refuses %s with InvalidLifecycleRequestError', (_, change) => {
      given(missionDecider, [missionCreated]).when(op('suspend', change)).thenThrows(InvalidLifecycleRequestError);
    });

    it('refuses an unknown operation', () => {
      given(missionDecider, [missionCreated])
        .when({ ...op('suspend'), operation: 'delete' } as unknown as ChangeMissionLifecycle)
        .thenThrows(InvalidLifecycleRequestError);
    });

    it('refuses an unknown command type (the exhaustive never check)', () => {
      given(missionDecider, [missionCreated])
        .when({ ...op('suspend'), type: 'delete' } as unknown as ChangeMissionLifecycle)
        .thenThrows(InvalidCommandError);
    });
  });

  describe('status view (DESIGN 2.1 /missions/status)', () => {
    it('reports the effective state, version and expiry', () => {
      const state: MissionState = fold(missionDecider, [missionCreated, suspended]);
      expect(missionStatusView(state, T2)).toEqual({
        id: MISSION_ID,
        issuer: ISSUER,
        authority_hash: AUTHORITY_HASH,
        state: 'suspended',
        version: 2,
        expires_at: EXPIRES_AT.toISOString(),
      });
      expect(missionStatusView(state, EXPIRES_AT).state).toBe('expired');
    });
  });

  it('keeps the approver and creation time in state', () => {
    expect(fold(missionDecider, [missionCreated])).toMatchObject({ approvedBy: APPROVER, createdAt: T0, clientId: 'agent-a' });
  });
});

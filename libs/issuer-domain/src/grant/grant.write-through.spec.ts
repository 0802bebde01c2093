import fc from 'fast-check';
import { sha256Base64url } from '../shared/sha256.js';
import { ADMIN, MISSION_ID, T0 } from '../testing/fixtures.js';
import type { GrantCommand } from './grant.commands.js';
import type { GrantEvent } from './grant.events.js';
import { grantDecider } from './grant.decider.js';
import { grantIdFromBytes, grantTokenFromBytes, grantTokenHash } from './grant-ids.js';

const GRANT_ID = grantIdFromBytes(new Uint8Array(16).fill(9));
const tokenHash = (n: number): string => grantTokenHash(grantTokenFromBytes(GRANT_ID, new Uint8Array(32).fill(n % 256)));
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const JKT = sha256Base64url('client key');
const OTHER_JKT = sha256Base64url('attacker key');
const REDIRECT = 'http://127.0.0.1:9000/cb';
const seconds = (n: number): Date => new Date(T0.getTime() + n * 1000);

/** One step of a grant's life, with an attacker's variants (another client, another key, an old token). */
type Step =
  | { kind: 'redeem'; client: string; jkt: string }
  | { kind: 'rotate'; token: 'current' | 'retired' | 'unknown'; client: string; jkt: string }
  | { kind: 'revokeToken'; token: 'current' | 'retired' }
  | { kind: 'revokeGrant' };
const client = fc.constantFrom('agent-a', 'agent-b');
const jkt = fc.constantFrom(JKT, OTHER_JKT);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('redeem' as const), client, jkt }),
  fc.record({ kind: fc.constant('rotate' as const), token: fc.constantFrom('current' as const, 'retired' as const, 'unknown' as const), client, jkt }),
  fc.record({ kind: fc.constant('revokeToken' as const), token: fc.constantFrom('current' as const, 'retired' as const) }),
  fc.constant({ kind: 'revokeGrant' as const }),
);

/**
 * AggregateCache.handle keeps the state it folded from the events it decided (write-through, issue 15) instead of
 * reading them back. That is sound only if folding the decided events gives exactly what folding them as stored
 * (JSON text, parsed) gives: this property holds it for the grant decider over random lives of a grant, attacks
 * included (reuse, another client, another key).
 */
describe('grant decider: a fold of decided events equals a fold of the events as stored', () => {
  it('for every sequence of redemptions, rotations and revocations', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 25 }), (steps) => {
        const asStored = (events: GrantEvent[]): GrantEvent[] => JSON.parse(JSON.stringify(events)) as GrantEvent[];
        const issue: GrantCommand = {
          type: 'IssueAuthorizationCode', grantId: GRANT_ID, missionId: MISSION_ID, clientId: 'agent-a', codeHash: tokenHash(1), redirectUri: REDIRECT,
          codeChallenge: sha256Base64url(VERIFIER), dpopJkt: JKT, expiresAt: seconds(60), now: T0,
        };
        let decided = grantDecider.evolve(grantDecider.initialState, grantDecider.decide(issue, grantDecider.initialState)[0]!);
        let stored = asStored(grantDecider.decide(issue, grantDecider.initialState)).reduce(grantDecider.evolve, grantDecider.initialState);
        let current = tokenHash(2);
        const retired: string[] = [];
        steps.forEach((next, index) => {
          const now = seconds(index + 1);
          const fresh = tokenHash(index + 3);
          const pick = (which: 'current' | 'retired' | 'unknown') => (which === 'current' ? current : which === 'retired' ? (retired[0] ?? current) : tokenHash(250));
          const command: GrantCommand =
            next.kind === 'redeem'
              ? { type: 'RedeemAuthorizationCode', codeHash: tokenHash(1), clientId: next.client, redirectUri: REDIRECT, codeVerifierChallenge: sha256Base64url(VERIFIER), dpopJkt: next.jkt, refreshTokenHash: current, now }
              : next.kind === 'rotate'
                ? { type: 'RotateRefreshToken', refreshTokenHash: pick(next.token), newRefreshTokenHash: fresh, clientId: next.client, dpopJkt: next.jkt, now }
                : next.kind === 'revokeToken'
                  ? { type: 'RevokeRefreshToken', refreshTokenHash: pick(next.token), clientId: 'agent-a', now }
                  : { type: 'RevokeGrant', actor: ADMIN, now };
          let events: GrantEvent[];
          try {
            events = grantDecider.decide(command, decided);
          } catch (refusal) {
            // The same refusal over the state as stored.
            expect(() => grantDecider.decide(command, stored)).toThrow((refusal as Error).constructor as new () => Error);
            return;
          }
          expect(asStored(grantDecider.decide(command, stored))).toEqual(asStored(events));
          decided = events.reduce(grantDecider.evolve, decided);
          stored = asStored(events).reduce(grantDecider.evolve, stored);
          if (events.some((event) => event.type === 'RefreshTokenRotated')) {
            retired.push(current);
            current = fresh;
          }
          expect(decided).toEqual(stored);
        });
      }),
      { numRuns: 300 },
    );
  });
});

import { missionIdFromBytes } from '../mission/mission-id.js';
import { effectiveState, type Mission } from '../mission/mission.state.js';
import type { MissionLifecycleState } from '../mission/mission-lifecycle.js';
import { at, EXPIRES_AT, MISSION_ID, missionRecord, OTHER_MISSION_ID, parentLink } from '../testing/fixtures.js';
import { lineageReport, lineageState, reportGeneration } from './lineage-state.js';

const NOW = at('2026-11-22T12:00:00.000Z');
const ROOT_ID = missionIdFromBytes(new Uint8Array(16).fill(3));
const CHILD_EXPIRES_AT = at('2026-11-22T14:00:00.000Z');

const child = (lifecycle: MissionLifecycleState = 'active', overrides: Partial<Mission> = {}): Mission =>
  missionRecord({ missionId: MISSION_ID, lifecycle, expiresAt: CHILD_EXPIRES_AT, parent: parentLink({ id: OTHER_MISSION_ID, depth: 2 }), ...overrides });
const parent = (lifecycle: MissionLifecycleState = 'active', overrides: Partial<Mission> = {}): Mission =>
  missionRecord({ missionId: OTHER_MISSION_ID, lifecycle, parent: parentLink({ id: ROOT_ID, depth: 1 }), ...overrides });
const root = (lifecycle: MissionLifecycleState = 'active', overrides: Partial<Mission> = {}): Mission => missionRecord({ missionId: ROOT_ID, lifecycle, ...overrides });

const TERMINAL = ['completed', 'superseded', 'revoked', 'expired', 'cascaded'] as const;

describe('lineageState (spec 3.2 transitions under immediate cascade, spec 4.3, DESIGN 2.4)', () => {
  describe('root missions', () => {
    it.each(['active', 'suspended', ...TERMINAL] as const)('spec 3.2, DESIGN 2.3: a root mission (no ancestors) is reported as effectiveState: %s', (state) => {
      const mission = root(state);
      expect(lineageState(mission, [], NOW)).toBe(effectiveState(mission, NOW));
      expect(lineageState(mission, [], NOW)).toBe(state);
    });

    it('DESIGN 2.3: a root mission past its expires_at is expired whatever is stored', () => {
      expect(lineageState(root('active'), [], EXPIRES_AT)).toBe('expired');
      expect(lineageState(root('suspended'), [], EXPIRES_AT)).toBe('expired');
    });
  });

  describe('an active lineage', () => {
    it('spec 3.2 rule 5: a child is active only when it and every ancestor are active', () => {
      expect(lineageState(child(), [parent(), root()], NOW)).toBe('active');
    });

    it('spec 3.2: a child suspended on its own is suspended under active ancestors', () => {
      expect(lineageState(child('suspended'), [parent(), root()], NOW)).toBe('suspended');
    });
  });

  describe('own terminal state wins', () => {
    it.each(TERMINAL)('spec 3.1: a child whose own state is %s keeps it whatever the ancestors are', (own) => {
      for (const ancestors of [[parent(), root()], [parent('suspended'), root()], [parent('revoked'), root()], [parent(), root('completed')]]) {
        expect(lineageState(child(own), ancestors, NOW)).toBe(own);
      }
    });

    it('spec 3.2 last row: the child\'s own expires_at passing wins over a suspended parent (expired, not suspended)', () => {
      expect(lineageState(child('active'), [parent('suspended'), root()], CHILD_EXPIRES_AT)).toBe('expired');
      expect(lineageState(child('active'), [parent('suspended'), root()], at('2026-11-22T13:59:59.999Z'))).toBe('suspended');
    });

    it('spec 3.2 last row: own expiry also wins over a suspended grandparent and over own suspension', () => {
      expect(lineageState(child('suspended'), [parent(), root('suspended')], CHILD_EXPIRES_AT)).toBe('expired');
    });

    it.each(TERMINAL)('spec 3.1 (decision 0020): a recorded %s never changes, also once the child\'s own expires_at has passed', (own) => {
      for (const ancestors of [[parent(), root()], [parent('suspended'), root()], [parent('revoked'), root()]]) {
        expect(lineageState(child(own), ancestors, CHILD_EXPIRES_AT)).toBe(own);
        expect(lineageState(child(own), ancestors, at('2026-11-23T00:00:00.000Z'))).toBe(own);
      }
      expect(lineageState(root(own), [], at('2026-11-23T00:00:00.000Z'))).toBe(own);
    });
  });

  describe('what happened first: a terminal ancestor or the child\'s own expiry (spec 3.1, 3.2; decision 0020)', () => {
    const revokedAt = (iso: string) => ({ updatedAt: at(iso), terminalAt: at(iso) });

    it('spec 3.1, 3.2: a child projected cascaded stays cascaded once its own expires_at passes (the parent ended first)', () => {
      const parentRevoked = parent('revoked', revokedAt('2026-11-22T13:00:00.000Z'));
      expect(lineageState(child('active'), [parentRevoked, root()], at('2026-11-22T13:30:00.000Z'))).toBe('cascaded');
      expect(lineageState(child('active'), [parentRevoked, root()], CHILD_EXPIRES_AT)).toBe('cascaded');
      expect(lineageState(child('suspended'), [parentRevoked, root()], at('2026-11-23T00:00:00.000Z'))).toBe('cascaded');
      expect(lineageReport(child('active'), [parentRevoked, root()], CHILD_EXPIRES_AT)).toEqual({ state: 'cascaded', since: Date.parse('2026-11-22T13:00:00.000Z') });
    });

    it('spec 3.1, 3.2: through a grandparent too — the cascade took effect when the root ended', () => {
      const rootCompleted = root('completed', revokedAt('2026-11-22T12:30:00.000Z'));
      expect(lineageReport(child('active'), [parent(), rootCompleted], CHILD_EXPIRES_AT)).toEqual({ state: 'cascaded', since: Date.parse('2026-11-22T12:30:00.000Z') });
      // The parent's own recorded cascade carries when it took effect.
      const parentCascaded = parent('cascaded', { updatedAt: at('2026-11-22T15:00:00.000Z'), terminalAt: at('2026-11-22T12:30:00.000Z') });
      expect(lineageState(child('active'), [parentCascaded, rootCompleted], CHILD_EXPIRES_AT)).toBe('cascaded');
    });

    it('spec 3.2 last row: a child whose own expires_at came before (or with) the parent\'s end is expired', () => {
      const parentRevokedLater = parent('revoked', revokedAt('2026-11-22T14:30:00.000Z'));
      expect(lineageState(child('active'), [parentRevokedLater, root()], at('2026-11-22T15:00:00.000Z'))).toBe('expired');
      const parentRevokedWith = parent('revoked', revokedAt('2026-11-22T14:00:00.000Z'));
      expect(lineageState(child('active'), [parentRevokedWith, root()], at('2026-11-22T15:00:00.000Z'))).toBe('expired');
      // A parent capped at the same expires_at: both end together, the child by its own expiry.
      const parentSameExpiry = parent('active', { expiresAt: CHILD_EXPIRES_AT });
      expect(lineageState(child('active'), [parentSameExpiry, root()], CHILD_EXPIRES_AT)).toBe('expired');
    });

    it('spec 3.2 last row: only a projected suspended yields to the child\'s own expiry', () => {
      expect(lineageState(child('active'), [parent('suspended'), root()], CHILD_EXPIRES_AT)).toBe('expired');
      expect(lineageState(child('active'), [parent('revoked', revokedAt('2026-11-22T13:00:00.000Z')), root('suspended')], CHILD_EXPIRES_AT)).toBe('cascaded');
    });

    it('reportGeneration: a recorded expiry took effect at expires_at, however late it was recorded', () => {
      const member = { lifecycle: 'expired' as const, expiresAt: Date.parse('2026-11-22T13:00:00.000Z'), terminalAt: Date.parse('2026-11-22T13:00:00.000Z') };
      expect(reportGeneration(member, undefined, Date.parse('2026-11-22T18:00:00.000Z'))).toEqual({ state: 'expired', since: member.expiresAt });
      const under = { lifecycle: 'active' as const, expiresAt: Date.parse('2026-11-22T13:00:00.000Z') };
      expect(reportGeneration(under, { state: 'expired', since: member.expiresAt }, Date.parse('2026-11-22T18:00:00.000Z'))).toEqual({ state: 'expired', since: under.expiresAt });
    });
  });

  describe('terminal ancestor → cascaded', () => {
    it.each(TERMINAL)('spec 3.2 row 1: a non-terminal child of a %s parent is cascaded', (state) => {
      expect(lineageState(child('active'), [parent(state), root()], NOW)).toBe('cascaded');
      expect(lineageState(child('suspended'), [parent(state), root()], NOW)).toBe('cascaded');
    });

    it.each(TERMINAL)('spec 3.2 row 1 (transitive): a non-terminal child of a %s grandparent is cascaded', (state) => {
      expect(lineageState(child('active'), [parent('active'), root(state)], NOW)).toBe('cascaded');
    });

    it('spec 3.2 row 1: an ancestor expired by time (stored active) is a terminal trigger', () => {
      const shortParent = parent('active', { expiresAt: at('2026-11-22T11:00:00.000Z') });
      expect(lineageState(child(), [shortParent, root()], NOW)).toBe('cascaded');
      const shortRoot = root('active', { expiresAt: at('2026-11-22T11:59:59.999Z') });
      expect(lineageState(child(), [parent(), shortRoot], NOW)).toBe('cascaded');
    });

    it('spec 3.2 row 1: an ancestor not yet at its expires_at is no trigger', () => {
      const parentExpiringLater = parent('active', { expiresAt: at('2026-11-22T12:00:00.001Z') });
      expect(lineageState(child(), [parentExpiringLater, root()], NOW)).toBe('active');
    });

    it('spec 3.2 row 1: a terminal ancestor wins over a suspended one, whichever is nearer', () => {
      expect(lineageState(child(), [parent('suspended'), root('revoked')], NOW)).toBe('cascaded');
      expect(lineageState(child(), [parent('revoked'), root('suspended')], NOW)).toBe('cascaded');
    });
  });

  describe('suspended ancestor → suspended, resume → own state', () => {
    it('spec 3.2 row 2, spec 4.3: a child of a suspended parent is reported suspended', () => {
      expect(lineageState(child('active'), [parent('suspended'), root()], NOW)).toBe('suspended');
    });

    it('spec 3.2 row 2 (transitive): a child of a suspended grandparent is reported suspended', () => {
      expect(lineageState(child('active'), [parent('active'), root('suspended')], NOW)).toBe('suspended');
    });

    it('spec 3.2 row 3: once the parent resumes the child is back to its own (pre-suspension) state', () => {
      expect(lineageState(child('active'), [parent('active', { version: 3 }), root()], NOW)).toBe('active');
      expect(lineageState(child('suspended'), [parent('active', { version: 3 }), root()], NOW)).toBe('suspended');
    });

    it('spec 3.2: a child suspended on its own under a suspended parent stays suspended', () => {
      expect(lineageState(child('suspended'), [parent('suspended'), root()], NOW)).toBe('suspended');
    });
  });
});

import { fold } from '@mission/decider';
import { authorityHash } from '../authority-set/authority-hash.js';
import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { AttachChild } from '../mission/mission.commands.js';
import { missionDecider } from '../mission/mission.decider.js';
import { missionIdFromBytes } from '../mission/mission-id.js';
import { initialMissionState } from '../mission/mission.state.js';
import { at, attachmentExtras, CLIENT, createCommand, EXPIRES_AT, INTENT, ISSUER, missionRecord, OTHER_MISSION_ID, parentLink, requestedChildWithin } from '../testing/fixtures.js';
import { ChildCreationDeniedError } from './child-creation-denied.error.js';
import { requireDistinctChildActor, requireIntentWithinParent } from './child-creation-checks.js';

/*
 * Issue 11 items 1 and 9 — the mission decider itself refuses what spec 2.1, 2.5 and 8 forbid, over the parent's
 * real state (AttachChild) and on the child's own stream (CreateMission), so no caller can write such a child by
 * going around the service. Each test is an attacker's command the decider used to accept.
 */

const T1 = at('2026-11-22T10:00:00.000Z');
const INVOICES = 'https://erp.example.com/invoices';
const PARENT_SET: AuthoritySet = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], constraints: { max_amount: { value: '500.00', currency: 'EUR' } }, delegation: { max_depth: 1, children: {} } },
];
const parentCreated = missionDecider.decide(createCommand({ authoritySet: PARENT_SET, authorityHash: authorityHash(ISSUER, PARENT_SET) }), initialMissionState)[0]!;
const CHILD_ID = missionIdFromBytes(new Uint8Array(16).fill(42));

const attach = (overrides: Partial<AttachChild> = {}): AttachChild => ({
  type: 'AttachChild', childMissionId: CHILD_ID, childClientId: 'child-agent-1', parentEntryIndexes: [0], actor: CLIENT, now: T1,
  ...attachmentExtras(CHILD_ID, 1, T1, PARENT_SET).command,
  ...overrides,
});
const parent = fold(missionDecider, [parentCreated]);

describe('AttachChild decides the child\'s bounds over the parent\'s state (issue 11 items 1, 9)', () => {
  it('accepts a child within the parent (the control case for every refusal below)', () => {
    expect(missionDecider.decide(attach(), parent).map((event) => event.type)).toEqual(['ChildMissionAttached']);
  });

  it('spec 2.1, spec 8 child expires_at (attacker: a child outliving its parent): refused', () => {
    const child = { ...requestedChildWithin(PARENT_SET, [0]), expiresAt: new Date(EXPIRES_AT.getTime() + 1) };
    expect(() => missionDecider.decide(attach({ child }), parent)).toThrow(/must not be later than the parent/);
  });

  it('spec 2.5 rule 2 (attacker: the intent names a resource outside the parent\'s intent): refused not_strict_subset', () => {
    const child = { ...requestedChildWithin(PARENT_SET, [0]), intentResources: ['https://erp.example.com/payroll'] };
    expect(() => missionDecider.decide(attach({ child }), parent)).toThrow(expect.objectContaining({ missionDenialReason: 'not_strict_subset' }) as never);
  });

  it('spec 2.5 rules 1–2 (attacker: a broader child entry than its justifying parent entry, bypassing the service): refused not_strict_subset', () => {
    const broader: AuthoritySet = [
      { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read', 'invoices.write'], constraints: { max_amount: { value: '500.00', currency: 'EUR' } } },
    ];
    const dropped: AuthoritySet = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }];
    for (const authoritySet of [broader, dropped]) {
      expect(() => missionDecider.decide(attach({ child: { ...requestedChildWithin(PARENT_SET, [0]), authoritySet } }), parent)).toThrow(ChildCreationDeniedError);
    }
  });

  it('spec 1 item 4, 5 rule 3 (attacker: the parent names its own client as the child actor): refused child_actor_not_allowed', () => {
    expect(() => missionDecider.decide(attach({ childClientId: 'agent-a' }), parent)).toThrow(expect.objectContaining({ missionDenialReason: 'child_actor_not_allowed' }) as never);
  });

  it('records the child\'s authority hash and expiry it decided on', () => {
    const [event] = missionDecider.decide(attach(), parent);
    const child = requestedChildWithin(PARENT_SET, [0]);
    expect(event?.data).toMatchObject({ child_authority_hash: authorityHash(ISSUER, child.authoritySet), child_expires_at: EXPIRES_AT.toISOString() });
  });
});

describe('a child\'s own record is bounded by its parent (spec 2.1, 8; issue 11 item 9)', () => {
  const childCreate = createCommand({ missionId: CHILD_ID, parent: parentLink({ id: OTHER_MISSION_ID }) });

  it('accepts a child within the parent bounds (control case)', () => {
    expect(missionDecider.decide(childCreate, initialMissionState)).toHaveLength(1);
  });

  it('spec 2.1, 8 (attacker: a child create later than its parent\'s expires_at): refused', () => {
    const command = { ...childCreate, parentBounds: { expiresAt: new Date(EXPIRES_AT.getTime() - 1), intentResources: INTENT.resources } };
    expect(() => missionDecider.decide(command, initialMissionState)).toThrow(/later than its parent/);
  });

  it('spec 2.5 rule 2 (attacker: a child intent naming a resource outside the parent): refused', () => {
    const command = { ...childCreate, parentBounds: { expiresAt: EXPIRES_AT, intentResources: ['https://erp.example.com/other'] } };
    expect(() => missionDecider.decide(command, initialMissionState)).toThrow(/outside its parent/);
  });

  it('a child create without parentBounds is refused; a root with parentBounds too', () => {
    const withoutBounds = { ...childCreate, parentBounds: undefined };
    expect(() => missionDecider.decide(withoutBounds, initialMissionState)).toThrow(/parentBounds/);
    expect(() => missionDecider.decide(createCommand({ parentBounds: { expiresAt: EXPIRES_AT, intentResources: [] } }), initialMissionState)).toThrow(/parentBounds/);
  });
});

describe('pure creation checks (spec 4.1 steps 6–7)', () => {
  it('spec 1 item 4, 5 rule 3 (attacker: the child actor is the parent\'s client or a grandparent\'s client): child_actor_not_allowed', () => {
    const lineage = [missionRecord({ clientId: 'agent-b' }), missionRecord({ clientId: 'agent-a' })];
    for (const sub of ['agent-b', 'agent-a']) {
      expect(() => requireDistinctChildActor(lineage, { sub })).toThrow(expect.objectContaining({ missionDenialReason: 'child_actor_not_allowed' }) as never);
    }
    expect(() => requireDistinctChildActor(lineage, { sub: 'agent-c' })).not.toThrow();
  });

  it('spec 2.5 rule 2 (attacker: a child intent naming a resource the parent intent does not): not_strict_subset', () => {
    const parentMission = missionRecord();
    expect(() => requireIntentWithinParent(parentMission, { ...INTENT, resources: ['https://erp.example.com/payroll'] })).toThrow(
      expect.objectContaining({ missionDenialReason: 'not_strict_subset' }) as never,
    );
    expect(() => requireIntentWithinParent(parentMission, INTENT)).not.toThrow();
  });
});

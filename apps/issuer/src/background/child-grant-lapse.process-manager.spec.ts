import { handleCommand, verifyHashChain } from '@mission/es-kit';
import {
  activeChildCount,
  grantDecider,
  GrantRevokedError,
  grantStreamName,
  grantTokenHash,
  missionExists,
  missionStreamName,
} from '@mission/issuer-domain';
import { childGrantLapseManager, GRANT_LAPSE_ACTOR, GRANT_LAPSE_REASON } from './child-grant-lapse.process-manager.js';
import { childSlotReleaseManager } from './child-slot-release.process-manager.js';
import { MissionLineage } from '../lineage/mission-lineage.js';
import { domainHead, entrySet, eventsOf, eventually, FAST_RETRY, GRANT_TTL_MS, sleep, workTypes } from '../testing/child-missions.js';
import { useChildrenBackground } from '../testing/children-background.js';

describe('child_grant_lapse (DESIGN 2.4: an unredeemed creation grant revokes its child and frees the slot)', () => {
  const { env, clock, missions, startRunner } = useChildrenBackground();

  it('revokes the child of an unredeemed grant and frees its slot, leaves a redeemed one alone, and detaches a child whose stream was never written', async () => {
    const root = await missions.root(entrySet({ max_children: 3, max_child_depth: 1 }));
    const unredeemed = await missions.child(root, entrySet());
    const redeemed = await missions.child(root, entrySet());
    const missing = await missions.child(root, entrySet(), { createStream: false, issueGrant: false });
    const jkt = grantTokenHash('child key');
    await handleCommand(env.store, grantStreamName(redeemed.grantId), grantDecider, {
      type: 'RedeemChildGrant', grantHash: grantTokenHash(redeemed.grantToken), clientId: redeemed.clientId, dpopJkt: jkt, now: clock.now(),
    }, missions.context());

    const lapse = childGrantLapseManager(env.store, clock.now, { retry: FAST_RETRY });
    await startRunner(lapse);
    await startRunner(childSlotReleaseManager(new MissionLineage(env.store), clock.now, FAST_RETRY));
    await sleep(200);
    expect((await missions.state(unredeemed.id)).lifecycle).toBe('active'); // not due before grant_expires_at

    clock.advance(GRANT_TTL_MS + 1000);
    const detachedIds = async () =>
      (await eventsOf(env.store, missionStreamName(root.id))).filter((event) => event.type === 'ChildMissionDetached').map((event) => event.data['child_mission_id']);
    await eventually(async () => (await detachedIds()).length === 2);
    await eventually(async () => (await workTypes(env.store, 'child_grant_lapse', redeemed.id)).includes('WorkCompleted'));

    // The unredeemed child: grant revoked first (a late redemption fails), then the child revoked normally.
    const unredeemedGrant = await eventsOf(env.store, grantStreamName(unredeemed.grantId));
    expect(unredeemedGrant.at(-1)).toMatchObject({ type: 'GrantRevoked', data: { reason: 'child_grant_unredeemed', actor: GRANT_LAPSE_ACTOR } });
    await expect(
      handleCommand(env.store, grantStreamName(unredeemed.grantId), grantDecider, {
        type: 'RedeemChildGrant', grantHash: grantTokenHash(unredeemed.grantToken), clientId: unredeemed.clientId, dpopJkt: jkt, now: clock.now(),
      }, missions.context()),
    ).rejects.toBeInstanceOf(GrantRevokedError);
    const revoked = (await eventsOf(env.store, missionStreamName(unredeemed.id))).filter((event) => event.type === 'MissionRevoked');
    expect(revoked.map((event) => event.data)).toEqual([
      expect.objectContaining({ state: 'revoked', previous_state: 'active', actor: GRANT_LAPSE_ACTOR, reason: GRANT_LAPSE_REASON, parent_id: root.id }),
    ]);

    // The redeemed child lives on, with its grant.
    expect((await missions.state(redeemed.id)).lifecycle).toBe('active');
    expect((await eventsOf(env.store, grantStreamName(redeemed.grantId))).map((event) => event.type)).not.toContain('GrantRevoked');

    // Slots: the revoked child (through slot release) and the never-created one (directly) are detached.
    expect(new Set(await detachedIds())).toEqual(new Set([unredeemed.id, missing.id]));
    const rootEvents = await eventsOf(env.store, missionStreamName(root.id));
    expect(rootEvents.find((event) => event.type === 'ChildMissionDetached' && event.data['child_mission_id'] === missing.id)?.data['state']).toBe('revoked');
    const rootState = await missions.state(root.id);
    expect(missionExists(rootState) && activeChildCount(rootState, 0)).toBe(1);
    await missions.child(root, entrySet());
    await missions.child(root, entrySet());

    // Idempotent: all three work items again decide nothing.
    await eventually(async () => (await Promise.all([unredeemed, missing].map((node) => workTypes(env.store, 'child_grant_lapse', node.id)))).every((types) => types.includes('WorkCompleted')));
    const head = await domainHead(env.store);
    for (const child of [unredeemed, redeemed, missing]) {
      await lapse.perform({ key: child.id, payload: { child_mission_id: child.id, parent_mission_id: root.id, grant_id: child.grantId }, attempt: 2 }, new AbortController().signal);
    }
    expect(await domainHead(env.store)).toBe(head);
    for (const id of [root.id, unredeemed.id]) expect((await verifyHashChain(env.store, missionStreamName(id))).ok).toBe(true);
  });
});

import { cascadedEvents, eventually, workTypes } from '../testing/child-missions.js';
import { useChildrenBackground } from '../testing/children-background.js';

describe('ChildrenBackgroundWork (Nest provider; spec child-mission-delegation 2.4, 3.2)', () => {
  const { env, missions, backgroundWork, threeGenerations } = useChildrenBackground();

  it('registers a readiness check per process manager, starts them with the module and stops them at shutdown', async () => {
    const checks: Array<{ name: string; check: () => Promise<{ ok: boolean }> }> = [];
    const work = backgroundWork(checks);
    await work.onModuleInit();
    try {
      expect(checks.map((check) => check.name)).toEqual(['process-manager:mission_cascade', 'process-manager:child_slot_release', 'process-manager:child_grant_lapse']);
      for (const check of checks) expect(await check.check()).toEqual({ ok: true });

      const tree = await threeGenerations();
      await missions.lifecycle(tree.root.id, 'revoke');
      await eventually(async () => (await Promise.all(tree.descendants.map((node) => cascadedEvents(env.store, node.id)))).every((events) => events.length === 1));
      await eventually(async () => (await workTypes(env.store, 'mission_cascade', tree.b.id)).includes('WorkCompleted'));
    } finally {
      await work.onApplicationShutdown();
    }
    // The coalesced trigger checkpoints are written at shutdown at the latest.
    const head = (await env.store.headPosition({ streamCategories: ['mission'] }))!;
    expect(await env.store.checkpoints.load('pm_mission_cascade_triggers')).toEqual(head);
  });
});

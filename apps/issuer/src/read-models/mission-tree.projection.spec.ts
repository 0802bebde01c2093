import { parseAuthorizationDetails } from '@mission/issuer-domain';
import { actor, CHILD_DELEGABLE, END, Feed, newId, NOW, T0, TWO_ENTRY_LEAF } from '../testing/mission-tree-feed.js';

describe('MissionTreeProjection (DESIGN 2.1 /missions/tree, spec 2.3, 2.4, 3.2)', () => {
  it('spec 2.3, 2.4: nodes breadth-first with parent_id, client_id, depth, cascade_mode and per delegable entry fan-out counters', () => {
    const feed = new Feed();
    const root = feed.root();
    const a = feed.child(root, [0], { set: CHILD_DELEGABLE });
    const b = feed.child(root, [0, 2], { set: TWO_ENTRY_LEAF });
    const grandchild = feed.child(a, [0], { clientId: 'demo-consent-agent' });

    const tree = feed.projection.tree(root, NOW)!;
    expect(tree.truncated).toBe(false);
    expect(tree.nodes.map((node) => node.mission_id)).toEqual([root, a, b, grandchild]);
    expect(tree.nodes[0]).toEqual({
      mission_id: root, client_id: 'demo-agent', state: 'active', depth: 0, created_at: T0.toISOString(), expires_at: END.toISOString(),
      fanout: [{ parent_entry: 0, active_children: 2, max_children: 2 }, { parent_entry: 2, active_children: 1 }],
    });
    expect(tree.nodes[1]).toEqual({
      mission_id: a, parent_id: root, client_id: 'demo-subagent', state: 'active', depth: 1, cascade_mode: 'immediate',
      created_at: T0.toISOString(), expires_at: END.toISOString(), fanout: [{ parent_entry: 0, active_children: 1, max_children: 2 }],
    });
    expect(tree.nodes[2]).toMatchObject({ mission_id: b, parent_id: root, depth: 1, fanout: [] });
    expect(tree.nodes[3]).toMatchObject({ mission_id: grandchild, parent_id: a, client_id: 'demo-consent-agent', depth: 2 });
    expect(feed.projection.tree(a, NOW)!.nodes.map((node) => node.mission_id)).toEqual([a, grandchild]);
  });

  it('spec 3.2, 4.3: descendants are reported suspended while an ancestor is suspended and back to active after resume', () => {
    const feed = new Feed();
    const root = feed.root();
    const child = feed.child(root, [0], { set: CHILD_DELEGABLE });
    const grandchild = feed.child(child, [0]);
    feed.lifecycle(root, 'suspend');
    expect(feed.states(root)).toEqual({ [root]: 'suspended', [child]: 'suspended', [grandchild]: 'suspended' });
    // The tree under a child still sees the suspended ancestor above it.
    expect(feed.states(child)).toEqual({ [child]: 'suspended', [grandchild]: 'suspended' });
    feed.expectAgreesWithDomain(root);
    feed.lifecycle(root, 'resume');
    expect(feed.states(root)).toEqual({ [root]: 'active', [child]: 'active', [grandchild]: 'active' });
    feed.expectAgreesWithDomain(root);
  });

  it('spec 3.2: a terminal ancestor makes every non-terminal descendant cascaded at once; a sibling branch is untouched', () => {
    const feed = new Feed();
    const root = feed.root();
    const a = feed.child(root, [0], { set: CHILD_DELEGABLE });
    const b = feed.child(root, [0]);
    const grandchild = feed.child(a, [0]);
    feed.lifecycle(a, 'revoke');
    expect(feed.states(root)).toEqual({ [root]: 'active', [a]: 'revoked', [b]: 'active', [grandchild]: 'cascaded' });
    feed.expectAgreesWithDomain(root);
    feed.lifecycle(root, 'complete');
    expect(feed.states(root)).toEqual({ [root]: 'completed', [a]: 'revoked', [b]: 'cascaded', [grandchild]: 'cascaded' });
    feed.expectAgreesWithDomain(root);
  });

  it('spec 3.2 last row: a child\'s own expiry wins over the suspension projected from its parent', () => {
    const feed = new Feed();
    const root = feed.root();
    const child = feed.child(root, [0], { expiresAt: new Date('2026-11-22T09:30:00.000Z') });
    feed.lifecycle(root, 'suspend');
    expect(feed.states(root)).toEqual({ [root]: 'suspended', [child]: 'expired' });
    feed.expectAgreesWithDomain(root);
  });

  it('spec 2.4 rule 2: a detached (terminal) child frees its slot; an attached child not yet created counts but is not a node', () => {
    const feed = new Feed();
    const root = feed.root();
    const a = feed.child(root, [0]);
    const pending = feed.child(root, [0], { create: false });
    expect(feed.projection.tree(root, NOW)!.nodes.map((node) => node.mission_id)).toEqual([root, a]);
    expect(feed.projection.tree(root, NOW)!.nodes[0]!.fanout[0]).toEqual({ parent_entry: 0, active_children: 2, max_children: 2 });
    feed.lifecycle(a, 'complete');
    feed.run(root, { type: 'DetachChild', childMissionId: a, state: 'completed', now: T0 });
    expect(feed.projection.tree(root, NOW)!.nodes[0]!.fanout[0]).toEqual({ parent_entry: 0, active_children: 1, max_children: 2 });
    expect(pending).toBeDefined();
  });

  it('bounds the answer: at most maxNodes nodes, then truncated', () => {
    const feed = new Feed();
    const root = feed.root(parseAuthorizationDetails([{ type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { children: {} } }]));
    for (let i = 0; i < 5; i++) feed.child(root, [0]);
    expect(feed.projection.tree(root, NOW, 3)).toMatchObject({ truncated: true });
    expect(feed.projection.tree(root, NOW, 3)!.nodes).toHaveLength(3);
    expect(feed.projection.tree(root, NOW, 6)).toMatchObject({ truncated: false });
  });

  it('bounds the answer at the end of a generation: truncated only if a next generation exists', () => {
    const feed = new Feed();
    const root = feed.root();
    const parent = feed.child(root, [0], { set: CHILD_DELEGABLE });
    const sibling = feed.child(root, [0]);
    expect(feed.projection.tree(root, NOW, 3)).toMatchObject({ truncated: false });
    const grandchild = feed.child(parent, [0]);
    expect(feed.projection.tree(root, NOW, 3)).toMatchObject({ truncated: true });
    expect(feed.projection.tree(root, NOW, 4)).toMatchObject({ truncated: false });
    expect(feed.projection.tree(root, NOW, 4)!.nodes.map((node) => node.mission_id)).toEqual([root, parent, sibling, grandchild]);
    expect(feed.projection.tree(parent, NOW, 1)).toMatchObject({ truncated: true });
  });

  it('is rebuilt from events: reset forgets everything; an unknown mission has no tree; appliedThrough names the last event', () => {
    const feed = new Feed();
    const root = feed.root();
    expect(feed.projection.size).toBe(1);
    expect(feed.projection.appliedThrough).toEqual({ position: '1/1', recordedAt: NOW.toISOString() });
    expect(feed.projection.tree(newId(), NOW)).toBeUndefined();
    feed.projection.reset();
    expect(feed.projection.tree(root, NOW)).toBeUndefined();
    expect(feed.projection.appliedThrough).toBeUndefined();
  });
});

describe('MissionTreeProjection reports what happened first (spec 3.1, 3.2; decision 0020)', () => {
  const t = (hhmm: string): Date => new Date(`2026-11-22T${hhmm}:00.000Z`);

  it('spec 3.1: a cascaded child stays cascaded in the tree once its own expires_at passes — projected, then recorded late', () => {
    const feed = new Feed();
    const root = feed.root();
    const a = feed.child(root, [0], { set: CHILD_DELEGABLE, expiresAt: t('12:00') });
    const grandchild = feed.child(a, [0], { clientId: 'demo-consent-agent', expiresAt: t('12:00') });
    feed.lifecycle(root, 'revoke', t('10:30'));
    expect(feed.states(root, t('11:00'))).toEqual({ [root]: 'revoked', [a]: 'cascaded', [grandchild]: 'cascaded' });
    expect(feed.states(root, t('13:00'))).toEqual({ [root]: 'revoked', [a]: 'cascaded', [grandchild]: 'cascaded' });
    feed.expectAgreesWithDomain(root, t('13:00'));
    // The cascade process manager records it after the child's own expiry: nothing changes.
    feed.run(a, { type: 'CascadeMission', actor, missionId: a, parentMissionId: root, parentState: 'revoked', parentTerminalAt: t('10:30'), now: t('12:30') });
    expect(feed.mission(a).lifecycle).toBe('cascaded');
    expect(feed.states(root, t('13:00'))).toEqual({ [root]: 'revoked', [a]: 'cascaded', [grandchild]: 'cascaded' });
    feed.expectAgreesWithDomain(root, t('13:00'));
    expect(feed.states(a, t('13:00'))).toEqual({ [a]: 'cascaded', [grandchild]: 'cascaded' });
  });

  it('spec 3.2 last row: a child whose own expires_at came before its parent ended is expired, not cascaded', () => {
    const feed = new Feed();
    const root = feed.root();
    const early = feed.child(root, [0], { expiresAt: t('10:00') });
    const late = feed.child(root, [0], { expiresAt: t('12:00') });
    feed.lifecycle(root, 'complete', t('10:30'));
    expect(feed.states(root, t('11:00'))).toEqual({ [root]: 'completed', [early]: 'expired', [late]: 'cascaded' });
    feed.expectAgreesWithDomain(root, t('11:00'));
    feed.expectAgreesWithDomain(root, t('13:00'));
  });

  it('spec 3.2 last row: a projected suspension yields to the own expiry; a recorded terminal state never does', () => {
    const feed = new Feed();
    const root = feed.root();
    const held = feed.child(root, [0], { expiresAt: t('12:00') });
    const revoked = feed.child(root, [0], { expiresAt: t('12:00') });
    feed.lifecycle(revoked, 'revoke', t('09:30'));
    feed.lifecycle(root, 'suspend', t('10:00'));
    expect(feed.states(root, t('11:00'))).toEqual({ [root]: 'suspended', [held]: 'suspended', [revoked]: 'revoked' });
    expect(feed.states(root, t('12:00'))).toEqual({ [root]: 'suspended', [held]: 'expired', [revoked]: 'revoked' });
    feed.expectAgreesWithDomain(root, t('12:00'));
  });
});

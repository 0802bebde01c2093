import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { CHILD_DELEGABLE, Feed, NOW, T0, TWO_ENTRY_LEAF } from '../testing/mission-tree-feed.js';
import { MissionTreeProjection } from './mission-tree.projection.js';
import { ReadModelFileInUseError } from '@mission/event-store';
import { MissionTreeStore } from './mission-tree.store.js';

/** A tree with every kind of change the model keeps: creation with a parent, attachment, detachment, lifecycle, a pending child. */
function scenario(feed: Feed): string {
  const root = feed.root();
  const a = feed.child(root, [0], { set: CHILD_DELEGABLE });
  feed.child(root, [0, 2], { set: TWO_ENTRY_LEAF });
  const grandchild = feed.child(a, [0]);
  feed.child(a, [0], { create: false });
  feed.lifecycle(grandchild, 'complete');
  feed.run(a, { type: 'DetachChild', childMissionId: grandchild, state: 'completed', now: T0 });
  feed.lifecycle(a, 'suspend');
  return root;
}

/** A copy of the model's files as they are on disk now (what a kill -9 leaves), under a new name. */
function snapshot(path: string, name: string): string {
  const copy = join(dirname(path), `${name}-${Math.random().toString(36).slice(2)}.sqlite`);
  copyFileSync(path, copy);
  if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
  return copy;
}

describe('MissionTreeStore (ADR 0086: the tree model in a SQLite file, resumed from its stored position)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mission-tree-'));
    file = join(dir, 'read-models', 'mission-tree.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a model reopened from its file answers the same trees, size and applied position', () => {
    const first = new MissionTreeProjection(MissionTreeStore.open(file));
    const feed = new Feed(first);
    const root = scenario(feed);
    const before = { tree: first.tree(root, NOW), size: first.size, applied: first.appliedThrough };
    first.close();

    const reopened = new MissionTreeProjection(MissionTreeStore.open(file));
    expect({ tree: reopened.tree(root, NOW), size: reopened.size, applied: reopened.appliedThrough }).toEqual(before);
    expect(before.tree!.nodes.map((node) => node.state)).toEqual(['active', 'suspended', 'active', 'completed']);
    expect(before.tree!.nodes[1]!.fanout).toEqual([{ parent_entry: 0, active_children: 1, max_children: 2 }]);
    reopened.close();
  });

  it('a crash before the commit leaves neither the changes nor their position; resuming from it gives the same model', () => {
    const live = new MissionTreeProjection(MissionTreeStore.open(file));
    const feed = new Feed(live);
    const root = feed.root();
    const child = feed.child(root, [0], { set: CHILD_DELEGABLE });
    live.persist();
    const committed = { tree: live.tree(root, NOW), applied: live.appliedThrough };
    const committedEvents = feed.events.length;

    // Applied but not committed (the commit timer has not fired). The files as they are now are what a crash
    // (kill -9) leaves: SQLite's recovery keeps no WAL frame after the last commit frame.
    feed.child(child, [0]);
    feed.lifecycle(root, 'revoke');
    const afterCrash = new MissionTreeProjection(MissionTreeStore.open(snapshot(file, 'crashed')));
    expect({ tree: afterCrash.tree(root, NOW), applied: afterCrash.appliedThrough }).toEqual(committed);

    // The runner resumes after the stored position: the events after it, applied again, give what the live model holds.
    for (const event of feed.events.slice(committedEvents)) afterCrash.apply(event);
    expect(afterCrash.tree(root, NOW)).toEqual(live.tree(root, NOW));
    expect(afterCrash.tree(root, NOW)!.nodes.map((node) => node.state)).toEqual(['revoked', 'cascaded', 'cascaded']);
    live.close();
    afterCrash.close();
  });

  it('at-least-once delivery: replaying events the model already holds, from any of them on, changes no tree', () => {
    const feed = new Feed();
    const root = scenario(feed);
    const expected = feed.projection.tree(root, NOW);
    for (let from = 0; from < feed.events.length; from++) {
      const replayed = new MissionTreeProjection();
      for (const event of feed.events) replayed.apply(event);
      for (const event of feed.events.slice(from)) replayed.apply(event);
      expect([from, replayed.tree(root, NOW)]).toEqual([from, expected]);
      replayed.close();
    }
  });

  it('commits on its own after commitAfterMs, so a model left running holds its changes on disk', async () => {
    const live = new MissionTreeProjection(MissionTreeStore.open(file, { commitAfterMs: 20 }));
    const root = new Feed(live).root();
    const onDisk = (): MissionTreeProjection => new MissionTreeProjection(MissionTreeStore.open(snapshot(file, 'on-disk')));
    const early = onDisk();
    expect([early.size, early.appliedThrough]).toEqual([0, undefined]);
    early.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const late = onDisk();
    expect([late.size, late.tree(root, NOW)?.nodes.length, late.appliedThrough]).toEqual([1, 1, live.appliedThrough]);
    live.close();
    late.close();
  });

  it('one process per file: a second open while the model is in use fails, naming the file', () => {
    const live = MissionTreeStore.open(file);
    expect(() => MissionTreeStore.open(file)).toThrow(ReadModelFileInUseError);
    expect(() => MissionTreeStore.open(file)).toThrow(`the mission tree model ${file} is in use by another process`);
    live.close();
    MissionTreeStore.open(file).close();
  });

  it('a file SQLite cannot read is started afresh (the model is derived), and says why', () => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, 'not a database, but long enough to be read as one by SQLite: '.repeat(100));
    const reasons: string[] = [];
    const projection = new MissionTreeProjection(MissionTreeStore.open(file, { onRecreated: (reason) => reasons.push(reason) }));
    expect([projection.size, projection.storedPosition()]).toEqual([0, undefined]);
    expect(reasons).toEqual([expect.stringContaining('could not be read')]);
    const root = new Feed(projection).root();
    projection.close();
    const reopened = new MissionTreeProjection(MissionTreeStore.open(file));
    expect(reopened.tree(root, NOW)?.nodes).toHaveLength(1);
    reopened.close();
  });

  it('a file of another schema version is emptied: the model is rebuilt from the store', () => {
    const first = new MissionTreeProjection(MissionTreeStore.open(file));
    scenario(new Feed(first));
    first.close();
    const db = new Database(file);
    db.prepare("UPDATE meta SET value = 'older' WHERE key = 'schema'").run();
    db.close();
    const reasons: string[] = [];
    const reopened = new MissionTreeProjection(MissionTreeStore.open(file, { onRecreated: (reason) => reasons.push(reason) }));
    expect([reopened.size, reopened.appliedThrough, reopened.storedPosition()]).toEqual([0, undefined, undefined]);
    expect(reasons).toEqual(['schema older found, 1 expected: emptied']);
    reopened.close();
  });

  it('reset empties the model and forgets its position', () => {
    const projection = new MissionTreeProjection(MissionTreeStore.open(file));
    const root = scenario(new Feed(projection));
    projection.reset();
    expect([projection.size, projection.tree(root, NOW), projection.storedPosition()]).toEqual([0, undefined, undefined]);
    projection.close();
  });
});

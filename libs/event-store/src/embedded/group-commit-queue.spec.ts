import Database from 'better-sqlite3';
import { GroupCommitQueue } from './group-commit-queue.js';

describe('GroupCommitQueue (embedded store group commit)', () => {
  let db: Database.Database;
  let commits: number;
  let queue: GroupCommitQueue;
  beforeEach(() => {
    db = new Database(':memory:');
    db.exec('CREATE TABLE t (n INTEGER)');
    commits = 0;
    queue = new GroupCommitQueue(db, { afterCommit: () => void commits++, afterRollback: () => undefined });
  });
  afterEach(() => db.close());

  const insert = (n: number) => () => void db.prepare('INSERT INTO t (n) VALUES (?)').run(n);

  it('commits the writes requested in one turn together', async () => {
    await Promise.all([1, 2, 3].map((n) => queue.enqueue(insert(n))));
    expect(commits).toBe(1);
    expect(db.prepare('SELECT count(*) AS c FROM t').get()).toEqual({ c: 3 });
  });

  it('starts a new commit once the next write would pass 1,024 rows, so one commit never runs for long', async () => {
    await Promise.all([queue.enqueue(insert(1), 1_000), queue.enqueue(insert(2), 100), queue.enqueue(insert(3), 2_000), queue.enqueue(insert(4), 1)]);
    // [1,000] then [100] then the oversized [2,000] alone (it cannot be split), then [1].
    expect(commits).toBe(4);
    expect(db.prepare('SELECT count(*) AS c FROM t').get()).toEqual({ c: 4 });
  });
});

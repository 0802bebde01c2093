import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchedModelWrites } from './batched-model-writes.js';
import { openReadModelFile, type ReadModelFileOptions } from './read-model-file.js';

const V1: ReadModelFileOptions = { description: 'the test model', oneProcessHint: 'run one test per file', schemaVersion: '1', schemaSql: 'CREATE TABLE IF NOT EXISTS rows (id TEXT PRIMARY KEY) WITHOUT ROWID;' };
const V2: ReadModelFileOptions = { ...V1, schemaVersion: '2', schemaSql: 'CREATE TABLE IF NOT EXISTS rows (id TEXT PRIMARY KEY, extra TEXT NOT NULL) WITHOUT ROWID;' };
const position = { commit: 7n, prepare: 7n };

describe('openReadModelFile (ADR 0086, 0087: a read model in a SQLite file of its own)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'read-model-file-'));
    file = join(dir, 'read-models', 'test.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a file of another schema version has its tables made again (new columns included) and its position forgotten', () => {
    const first = openReadModelFile(file, V1);
    const writes = new BatchedModelWrites(first);
    writes.change(() => first.prepare("INSERT INTO rows VALUES ('a')").run());
    writes.appliedEvent({ position, created: new Date(0) });
    writes.close();
    const reasons: string[] = [];
    const second = openReadModelFile(file, { ...V2, onRecreated: (reason) => reasons.push(reason) });
    expect(reasons).toEqual(['schema 1 found, 2 expected: emptied']);
    expect(new BatchedModelWrites(second).appliedThrough).toBeUndefined();
    second.prepare("INSERT INTO rows VALUES ('b', 'the new column')").run();
    expect(second.prepare('SELECT count(*) AS n FROM rows').get()).toEqual({ n: 1 });
    second.close();
  });

  it('the same version keeps its rows and the position written with them', () => {
    const first = openReadModelFile(file, V1);
    const writes = new BatchedModelWrites(first);
    writes.change(() => first.prepare("INSERT INTO rows VALUES ('a')").run());
    writes.appliedEvent({ position, created: new Date(0) });
    writes.close();
    const again = openReadModelFile(file, V1);
    expect([again.prepare('SELECT id FROM rows').pluck().all(), new BatchedModelWrites(again).appliedThrough]).toEqual([['a'], { position, created: new Date(0) }]);
    again.close();
  });

  it('a commit that fails on the timer is rolled back and thrown by the next change (the projection stops)', async () => {
    const db = openReadModelFile(file, V1);
    const writes = new BatchedModelWrites(db, { commitAfterMs: 5 });
    writes.change(() => db.prepare("INSERT INTO rows VALUES ('a')").run());
    // A deferred constraint that fails only at COMMIT stands in for a disk error there.
    db.pragma('defer_foreign_keys = ON');
    db.exec('CREATE TABLE child (parent TEXT REFERENCES rows(id) DEFERRABLE INITIALLY DEFERRED)');
    db.pragma('foreign_keys = ON');
    db.prepare("INSERT INTO child VALUES ('missing')").run();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(() => writes.change(() => undefined)).toThrow(/FOREIGN KEY/);
    expect(db.prepare('SELECT count(*) AS n FROM rows').get()).toEqual({ n: 0 });
    db.close();
  });
});

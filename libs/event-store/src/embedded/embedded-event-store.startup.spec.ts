import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { EmbeddedEventStore } from './embedded-event-store.js';
import { EventStoreStartupError, StreamDeletedError, WrongExpectedRevisionError } from '../port/errors.js';
import { EMBEDDED_FILE_NAME } from './open-database.js';

const libRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tempDirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'es-startup-'));
  tempDirs.push(dir);
  return dir;
};
afterAll(() => tempDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('embedded store start-up failures are clear, never silent', () => {
  it('refuses a file that is not a database, naming it', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, EMBEDDED_FILE_NAME), 'this is not sqlite at all, just text '.repeat(200));
    const error = await EmbeddedEventStore.open({ dataDir: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventStoreStartupError);
    expect((error as Error).message).toContain(join(dir, EMBEDDED_FILE_NAME));
    expect((error as Error).message).toMatch(/not a readable event-store database/);
  });

  it('refuses a file locked by another instance', async () => {
    const dir = freshDir();
    const first = await EmbeddedEventStore.open({ dataDir: dir });
    try {
      const error = await EmbeddedEventStore.open({ dataDir: dir, lockTimeoutMs: 100 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EventStoreStartupError);
      expect((error as Error).message).toMatch(/locked by another process/);
    } finally {
      await first.close();
    }
  });

  it('refuses a file of another schema version', async () => {
    const dir = freshDir();
    await (await EmbeddedEventStore.open({ dataDir: dir })).close();
    const db = new Database(join(dir, EMBEDDED_FILE_NAME));
    db.prepare("UPDATE store_meta SET value = '99' WHERE key = 'schema_version'").run();
    db.close();
    await expect(EmbeddedEventStore.open({ dataDir: dir })).rejects.toThrow(/schema version 99/);
  });

  it('logs one line naming the single-replica embedded store', async () => {
    const lines: string[] = [];
    const store = await EmbeddedEventStore.open({ dataDir: freshDir(), logger: { info: (_: object, msg: string) => lines.push(msg) } });
    await store.close();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/embedded SQLite .*single replica/);
  });
});

describe('embedded store schema 1 → 2 (ADR 0055)', () => {
  it('fills the type column of a schema-1 file at start, so type-filtered reads see its old events', async () => {
    const dir = freshDir();
    const fresh = await EmbeddedEventStore.open({ dataDir: dir });
    await fresh.appendToStream('psmission-a', [{ type: 'MissionApproved', data: {} }, { type: 'MissionStatusRead', data: {} }]);
    await fresh.close();
    // Back to what a schema-1 build left on disk: no type column, no type index, version 1.
    const db = new Database(join(dir, EMBEDDED_FILE_NAME));
    db.exec("DROP INDEX events_by_type; ALTER TABLE events DROP COLUMN type; UPDATE store_meta SET value = '1' WHERE key = 'schema_version'");
    db.close();

    const store = await EmbeddedEventStore.open({ dataDir: dir });
    try {
      await store.appendToStream('psmission-a', [{ type: 'MissionTerminated', data: {} }]);
      const lifecycle: string[] = [];
      for await (const event of store.readAll({ filter: { eventTypes: ['MissionApproved', 'MissionTerminated'] } })) lifecycle.push(event.type);
      expect(lifecycle).toEqual(['MissionApproved', 'MissionTerminated']);
    } finally {
      await store.close();
    }
    const reopened = new Database(join(dir, EMBEDDED_FILE_NAME), { readonly: true });
    expect(reopened.prepare("SELECT value FROM store_meta WHERE key = 'schema_version'").pluck().get()).toBe('3');
    reopened.close();
  });
});

describe('embedded store schema 2 → 3: `streams` holds only tombstones (ADR 0075)', () => {
  /** A schema-2 file: every stream also had its row (name, revision) in `streams`. */
  async function schema2Store(dir: string): Promise<void> {
    const fresh = await EmbeddedEventStore.open({ dataDir: dir });
    await fresh.appendToStream('mission-live', [{ type: 'MissionCreated', data: {} }, { type: 'MissionChanged', data: {} }]);
    await fresh.appendToStream('psblob-gone', [{ type: 'BlobStored', data: { bytes: 'secret' } }, { type: 'BlobStored', data: {} }]);
    await fresh.tombstoneStream('psblob-gone');
    await fresh.close();
    const db = new Database(join(dir, EMBEDDED_FILE_NAME));
    db.exec("INSERT INTO streams (name, revision) VALUES ('mission-live', 1); UPDATE store_meta SET value = '2' WHERE key = 'schema_version'");
    db.close();
  }

  it('drops the rows of live streams, keeps tombstones refused, and appends go on at the right revision', async () => {
    const dir = freshDir();
    await schema2Store(dir);
    const store = await EmbeddedEventStore.open({ dataDir: dir });
    try {
      expect(await store.streamRevision('mission-live')).toBe(1n);
      await expect(store.appendToStream('mission-live', [{ type: 'MissionChanged', data: {} }], { expectedRevision: 0n })).rejects.toThrow(WrongExpectedRevisionError);
      expect((await store.appendToStream('mission-live', [{ type: 'MissionChanged', data: {} }], { expectedRevision: 1n })).nextExpectedRevision).toBe(2n);
      await expect(store.appendToStream('psblob-gone', [{ type: 'BlobStored', data: {} }])).rejects.toThrow(StreamDeletedError);
      await expect(store.streamRevision('psblob-gone')).rejects.toThrow(StreamDeletedError);
    } finally {
      await store.close();
    }
    const reopened = new Database(join(dir, EMBEDDED_FILE_NAME), { readonly: true });
    expect(reopened.prepare("SELECT value FROM store_meta WHERE key = 'schema_version'").pluck().get()).toBe('3');
    expect(reopened.prepare('SELECT name, revision, tombstone FROM streams').all()).toEqual([{ name: 'psblob-gone', revision: 1, tombstone: 1 }]);
    reopened.close();
  });

  it('writes no `streams` row for an append, only for a tombstone; expiry leaves a tombstone refused', async () => {
    const dir = freshDir();
    const store = await EmbeddedEventStore.open({ dataDir: dir });
    try {
      await store.appendToStream('clientjti-abc', [{ type: 'ClientAssertionUsed', data: {} }], { expectedRevision: 'no_stream' });
      await store.appendToStream('psblob-x', [{ type: 'BlobStored', data: {} }]);
      await store.tombstoneStream('psblob-x');
      await store.expireStreams(['clientjti-abc', 'psblob-x']);
      // The expired name is free again; the tombstoned one is not.
      expect((await store.appendToStream('clientjti-abc', [{ type: 'ClientAssertionUsed', data: {} }], { expectedRevision: 'no_stream' })).nextExpectedRevision).toBe(0n);
      await expect(store.appendToStream('psblob-x', [{ type: 'BlobStored', data: {} }], { expectedRevision: 'no_stream' })).rejects.toThrow(StreamDeletedError);
    } finally {
      await store.close();
    }
    const db = new Database(join(dir, EMBEDDED_FILE_NAME), { readonly: true });
    expect(db.prepare('SELECT name FROM streams').pluck().all()).toEqual(['psblob-x']);
    db.close();
  });
});

describe('embedded store privacy', () => {
  it('removes a tombstoned stream’s content from the file’s readable events', async () => {
    const store = await EmbeddedEventStore.open({ dataDir: freshDir() });
    await store.appendToStream('psblob-abc', [{ type: 'BlobStored', data: { bytes: 'secret-bytes' } }]);
    await store.appendToStream('psmission-abc', [{ type: 'MissionApproved', data: {} }]);
    await store.tombstoneStream('psblob-abc');
    const all: string[] = [];
    for await (const event of store.readAll()) all.push(JSON.stringify(event.data));
    expect(all.join()).not.toContain('secret-bytes');
    await store.close();
  });
});

describe('embedded store durability across kill -9', () => {
  beforeAll(() => {
    if (!existsSync(join(libRoot, 'dist/embedded/embedded-event-store.js'))) {
      execFileSync('npx', ['tsc', '-b', libRoot], { stdio: 'inherit' });
    }
  }, 120_000);

  it('loses no acknowledged append when the writing process is killed mid-stream', async () => {
    const dir = freshDir();
    const child = spawn(process.execPath, [join(libRoot, 'src/testing/embedded/append-until-killed.mjs'), dir, 'kill'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acknowledged = new Map<number, bigint>();
    let buffered = '';
    await new Promise<void>((done, fail) => {
      child.on('error', fail);
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? done() : fail(new Error(`child exited early: ${code}`))));
      child.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const [word, writer, revision] = line.split(' ');
          if (word === 'ack') acknowledged.set(Number(writer), BigInt(revision!));
        }
        if ([...acknowledged.values()].reduce((sum, revision) => sum + Number(revision) + 1, 0) >= 2000) child.kill('SIGKILL');
      });
    });

    const store = await EmbeddedEventStore.open({ dataDir: dir });
    try {
      for (const [writer, revision] of acknowledged) {
        const stored = await store.streamRevision(`kill-w${writer}`);
        expect(stored).not.toBe('no_stream');
        // A write can commit after the last line the child managed to print, never the other way round.
        expect(stored as bigint).toBeGreaterThanOrEqual(revision);
      }
      expect(acknowledged.size).toBe(16);
    } finally {
      await store.close();
    }
  }, 60_000);
});

import { randomBytes, randomUUID } from 'node:crypto';
import { canonicalJson, eventHash, verifyHashChain, type AggregateState, type CommandContext } from '@mission/es-kit';
import { openTempEmbeddedStore, type TempEmbeddedStore } from '@mission/event-store/testing';
import type { JsonObject, RecordedEvent } from '@mission/event-store';
import { encodeMissionState, missionStreamName, snapshotStreamName, type ManagementCaller, type MissionCommand, type MissionState } from '@mission/ps-domain';
import { AuditDigestKey } from '../abuse/audit-digest-key.js';
import { MissionLog } from './mission-log.js';
import { MISSION_SNAPSHOT_EVENT, MissionSnapshots, type SnapshotRejection } from './mission-snapshots.js';
import type { StateSnapshots } from './group-commit-stream.js';
import { countMissionEventsRead, type MissionEventsRead } from '../testing/mission-reads.spec-helper.js';

const S256 = 'ZXhhbXBsZS1taXNzaW9uLWJsb2ItZGlnZXN0LTAwMDA';
const OTHER = 'b3RoZXItbWlzc2lvbi1ibG9iLWRpZ2VzdC0wMDAwMDA';
const AGENT = 'aauth:assistant@agents.example';
const OWNER: ManagementCaller = { role: 'agent', id: AGENT };
const PERSON: ManagementCaller = { role: 'person', id: 'alice', tenant: 't1', ownedAgents: [AGENT] };
const NOW = new Date('2026-11-26T09:00:00.000Z');
const EVERY = 20;

const context = (causation: string): CommandContext => ({ correlationId: randomUUID(), causationId: causation, actor: { id: AGENT, role: 'agent' }, now: NOW });
const approve = (s256: string): MissionCommand => ({ type: 'ApproveMission', approver: 'https://ps.example', missionS256: s256, agent: AGENT, approvedBy: 'alice', tenant: 't1', now: NOW });
const status: MissionCommand = { type: 'ReadMissionStatus', caller: OWNER, now: NOW };
/** request_id values of spec 4.2 (≥ 128 bits): `ids.r1`, `ids.r2`. */
const ids = { r1: randomBytes(24).toString('base64url'), r2: randomBytes(24).toString('base64url') };
const terminate = (id: keyof typeof ids): MissionCommand => ({ type: 'TerminateMission', caller: PERSON, reason: 'revoked', requestId: ids[id], replacementResolves: false, now: NOW });

let temp: TempEmbeddedStore;
const key = new AuditDigestKey(randomBytes(32));
let rejections: SnapshotRejection[];
/** Events of `psmission-…` read from the store since the last reset (what a fold costs). */
let missionEventsRead: MissionEventsRead;

const snapshots = (every = EVERY): MissionSnapshots => new MissionSnapshots(temp.store, key, (rejection) => rejections.push(rejection), () => undefined, every);

beforeEach(async () => {
  temp = await openTempEmbeddedStore('mission-snapshots-');
  rejections = [];
  missionEventsRead = countMissionEventsRead(temp.store);
});
afterEach(() => temp.dispose());

/** A mission with `reads` logged status reads, written through a MissionLog with snapshots; returns that (warm) log. */
async function missionWithReads(reads: number, s256 = S256): Promise<MissionLog> {
  const log = new MissionLog(temp.store, snapshots());
  await log.execute(s256, approve(s256), context('approval'));
  for (let index = 0; index < reads; index++) await log.execute(s256, status, context(`status:${index}`));
  await log.snapshotsWritten();
  return log;
}

async function snapshotEvents(s256 = S256): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of temp.store.readStream(snapshotStreamName(s256))) events.push(event);
  return events;
}

async function lastEventOf(s256: string): Promise<RecordedEvent> {
  for await (const event of temp.store.readStream(missionStreamName(s256), { direction: 'backwards', maxCount: 1 })) return event;
  throw new Error('empty stream');
}

/** A snapshot event written by someone without the deployment key (an operator with store access), or with it. */
async function plantSnapshot(state: MissionState, at: RecordedEvent, options: { macKey?: AuditDigestKey; stream?: string; revision?: bigint } = {}): Promise<void> {
  const data: JsonObject = {
    v: 1,
    stream: options.stream ?? at.streamName,
    revision: (options.revision ?? at.revision).toString(),
    event_hash: eventHash(at),
    state: encodeMissionState(state) as JsonObject,
  };
  const mac = (options.macKey ?? new AuditDigestKey(randomBytes(32))).digest('ps-mission-snapshot', canonicalJson(data));
  await temp.store.appendToStream(snapshotStreamName(S256), [{ type: MISSION_SNAPSHOT_EVENT, data: { ...data, mac } }], { expectedRevision: 'any' });
}

describe('mission snapshots (issue 15 item 4, ADR 0059)', () => {
  it('ADR 0059: a cold mission log (restart) reads the newest snapshot and at most `every` events after it, not the whole history', async () => {
    await missionWithReads(10 * EVERY + 7);
    expect((await snapshotEvents()).length).toBeGreaterThanOrEqual(10);
    missionEventsRead.reset();
    const cold = new MissionLog(temp.store, snapshots());
    const result = await cold.execute(S256, terminate('r1'), context('terminate'));
    expect(result.state.status).toBe('terminated');
    expect(missionEventsRead.count).toBeLessThanOrEqual(EVERY + 2);
    // The same result as a fold from the first event, and the chain still links (the next event chained onto the snapshot's).
    const full = new MissionLog(temp.store);
    expect(await full.state(S256)).toEqual(result.state);
    expect((await verifyHashChain(temp.store, missionStreamName(S256))).ok).toBe(true);
  });

  it('spec 2.8: the log keeps one PS-local sequence across snapshots (sequence = revision + 1 for every event)', async () => {
    await missionWithReads(3 * EVERY);
    await new MissionLog(temp.store, snapshots()).execute(S256, status, context('cold status'));
    let expected = 1;
    for await (const event of temp.store.readStream(missionStreamName(S256))) expect(event.data['sequence']).toBe(expected++);
  });

  it('spec 3 rule 1: a stale snapshot taken while active never makes the terminated mission look active — the events after it are folded', async () => {
    const warm = await missionWithReads(EVERY);
    await warm.execute(S256, terminate('r1'), context('terminate'));
    const newest = (await snapshotEvents()).at(-1)!;
    expect((newest.data['state'] as JsonObject)['status']).toBe('active');
    const state = await new MissionLog(temp.store, snapshots()).state(S256);
    expect(state.status).toBe('terminated');
  });

  it('spec 3 rule 1: a snapshot written while a terminate commits (save held by a gate) is stale, and a cold log still sees the termination', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const real = snapshots();
    const gated: StateSnapshots<MissionState> = { every: EVERY, load: (s256) => real.load(s256), save: async (s256, current) => (await held, real.save(s256, current)) };
    const reader = new MissionLog(temp.store, gated);
    await reader.execute(S256, approve(S256), context('approval'));
    for (let index = 0; index < EVERY; index++) await reader.execute(S256, status, context(`status:${index}`));
    // The reader's snapshot of the active mission is in flight; another replica terminates meanwhile.
    await new MissionLog(temp.store).execute(S256, terminate('r1'), context('terminate'));
    release();
    await reader.snapshotsWritten();
    expect(((await snapshotEvents()).at(-1)!.data['state'] as JsonObject)['status']).toBe('active');
    expect((await new MissionLog(temp.store, snapshots()).state(S256)).status).toBe('terminated');
    // The reader's own next decision folds the termination in before deciding.
    const read = await reader.execute(S256, status, context('status after'));
    expect(read.newEvents.map((event) => [event.type, event.data['mission_status' as never]])).toEqual([['MissionStatusRead', 'terminated']]);
  });

  it('spec 3 rule 1: a forged snapshot (active, at the head, without the deployment key) is rejected: the terminated mission stays terminated', async () => {
    const warm = await missionWithReads(3);
    const terminated = await warm.execute(S256, terminate('r1'), context('terminate'));
    const active = { ...terminated.state, status: 'active' } as MissionState;
    await plantSnapshot(active, await lastEventOf(S256));
    const state = await new MissionLog(temp.store, snapshots()).state(S256);
    expect(state.status).toBe('terminated');
    expect(rejections).toEqual([{ s256: S256, reason: 'MAC does not verify' }]);
  });

  it('spec 4.2 rule 2: a forged snapshot that drops the request keys cannot let a request_id replay decide again', async () => {
    const warm = await missionWithReads(2);
    await warm.execute(S256, terminate('r1'), context('terminate'));
    const late = await warm.execute(S256, terminate('r2'), context('late'));
    expect(late.newEvents.map((event) => event.type)).toEqual(['LateTerminationRequested']);
    await plantSnapshot({ ...late.state, requestKeys: new Set() } as MissionState, await lastEventOf(S256));
    const replay = await new MissionLog(temp.store, snapshots()).execute(S256, terminate('r2'), context('replay'));
    expect(replay.newEvents).toEqual([]);
    expect(rejections.map((rejection) => rejection.reason)).toEqual(['MAC does not verify']);
  });

  it('ADR 0059: a genuine snapshot is not trusted over the stream — one naming a revision the stream does not hold, or another mission, is rejected', async () => {
    const warm = await missionWithReads(3);
    const terminated = await warm.execute(S256, terminate('r1'), context('terminate'));
    const active = { ...terminated.state, status: 'active' } as MissionState;
    const head = await lastEventOf(S256);
    await plantSnapshot(active, head, { macKey: key, revision: head.revision + 5n });
    expect((await new MissionLog(temp.store, snapshots()).state(S256)).status).toBe('terminated');
    await new MissionLog(temp.store, snapshots()).execute(OTHER, approve(OTHER), context('other'));
    await plantSnapshot(active, await lastEventOf(OTHER), { macKey: key });
    expect((await new MissionLog(temp.store, snapshots()).state(S256)).status).toBe('terminated');
    expect(rejections.map((rejection) => rejection.reason)).toEqual(['not an event of the stream at its revision', 'names another stream or no revision']);
  });

  it('ADR 0059: the snapshot is bound to the event at its revision — the same revision with other content (an edited stream) is rejected', async () => {
    await missionWithReads(EVERY);
    const genuine = (await snapshotEvents()).at(-1)!;
    const at = await lastEventOf(S256);
    const edited: RecordedEvent = { ...at, data: { ...at.data, mission_status: 'terminated' } };
    const state: AggregateState<MissionState> | undefined = await snapshots().load(S256);
    expect(state?.revision).toBe(BigInt(String(genuine.data['revision'])));
    await plantSnapshot((state as AggregateState<MissionState>).state, edited, { macKey: key });
    expect(await snapshots().load(S256)).toBeUndefined();
  });
});

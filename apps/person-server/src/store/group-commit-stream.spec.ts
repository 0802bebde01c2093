import { randomBytes, randomUUID } from 'node:crypto';
import { verifyHashChain, type CommandContext } from '@mission/es-kit';
import { openTempEmbeddedStore, type TempEmbeddedStore } from '@mission/event-store/testing';
import { missionStreamName, type ManagementCaller, type MissionCommand } from '@mission/ps-domain';
import { MissionLog } from './mission-log.js';
import { countMissionEventsRead, type MissionEventsRead } from '../testing/mission-reads.spec-helper.js';

const S256 = 'Z3JvdXAtY29tbWl0LXN0cmVhbS1taXNzaW9uLTAwMDA';
const AGENT = 'aauth:assistant@agents.example';
const OWNER: ManagementCaller = { role: 'agent', id: AGENT };
const PERSON: ManagementCaller = { role: 'person', id: 'alice', tenant: 't1', ownedAgents: [AGENT] };
const NOW = new Date('2026-11-26T09:00:00.000Z');

const context = (causation: string): CommandContext => ({ correlationId: randomUUID(), causationId: causation, actor: { id: AGENT, role: 'agent' }, now: NOW });
const approve: MissionCommand = { type: 'ApproveMission', approver: 'https://ps.example', missionS256: S256, agent: AGENT, approvedBy: 'alice', tenant: 't1', now: NOW };
const status: MissionCommand = { type: 'ReadMissionStatus', caller: OWNER, now: NOW };
const terminate: MissionCommand = { type: 'TerminateMission', caller: PERSON, reason: 'revoked', requestId: randomBytes(24).toString('base64url'), replacementResolves: false, now: NOW };

let temp: TempEmbeddedStore;
/** Events of `psmission-…` the store handed out since the last reset. */
let missionEventsRead: MissionEventsRead;

beforeEach(async () => {
  temp = await openTempEmbeddedStore('group-commit-stream-');
  missionEventsRead = countMissionEventsRead(temp.store);
});
afterEach(() => temp.dispose());

describe('GroupCommitStream (the mission log: cached fold, group commit)', () => {
  it('issue 15: a warm log folds its own appended events as decided — a status reads no mission event back from the store', async () => {
    const log = new MissionLog(temp.store);
    await log.execute(S256, approve, context('approval'));
    await log.execute(S256, status, context('status:0'));
    missionEventsRead.reset();
    for (let index = 1; index <= 5; index++) await log.execute(S256, status, context(`status:${index}`));
    await Promise.all([1, 2, 3].map((index) => log.execute(S256, status, context(`group:${index}`))));
    expect(missionEventsRead.count).toBe(0);
    // The fold kept in memory is the fold of what was recorded.
    expect(await log.state(S256)).toEqual(await new MissionLog(temp.store).state(S256));
  });

  it('DESIGN 1: events decided without a read-back still chain onto the recorded events (one and several per commit)', async () => {
    const log = new MissionLog(temp.store);
    await log.execute(S256, approve, context('approval'));
    for (let index = 0; index < 3; index++) await log.execute(S256, status, context(`status:${index}`));
    await Promise.all(Array.from({ length: 8 }, (_, index) => log.execute(S256, status, context(`group:${index}`))));
    await log.execute(S256, status, context('after the group'));
    const chain = await verifyHashChain(temp.store, missionStreamName(S256));
    expect(chain.ok).toBe(true);
  });

  it('spec 3 rule 1: a termination written by another replica is folded in before this replica decides its next status', async () => {
    const replica = new MissionLog(temp.store);
    await replica.execute(S256, approve, context('approval'));
    await replica.execute(S256, status, context('warm'));
    await new MissionLog(temp.store).execute(S256, terminate, context('terminate elsewhere'));
    const read = await replica.execute(S256, status, context('status after'));
    expect(read.state.status).toBe('terminated');
    expect(read.newEvents.map((event) => [event.type, event.data['mission_status' as never]])).toEqual([['MissionStatusRead', 'terminated']]);
    expect((await verifyHashChain(temp.store, missionStreamName(S256))).ok).toBe(true);
  });

  it('DESIGN 1: an append refused for its revision (another replica wrote first) is decided again on the fresh fold, and the chain links', async () => {
    const replica = new MissionLog(temp.store);
    const other = new MissionLog(temp.store);
    await replica.execute(S256, approve, context('approval'));
    await replica.execute(S256, status, context('warm replica'));
    await other.execute(S256, status, context('warm other'));
    await replica.execute(S256, status, context('replica writes'));
    // `other` still caches the revision before the replica's append: its next append conflicts and is decided again.
    const late = await other.execute(S256, status, context('other writes'));
    expect(late.newEvents[0]!.data['sequence' as never]).toBe(5);
    expect((await verifyHashChain(temp.store, missionStreamName(S256))).ok).toBe(true);
  });
});

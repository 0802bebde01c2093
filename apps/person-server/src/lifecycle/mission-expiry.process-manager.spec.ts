import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handleCommand, ProcessManagerRunner, verifyHashChain, type CommandContext } from '@mission/es-kit';
import { EmbeddedEventStore, type EventStore, type RecordedEvent } from '@mission/event-store';
import { missionDecider, missionStreamName, terminationResult, tokensStreamName, TOKEN_POLICIES, trackedTokenDecider, type MissionCommand } from '@mission/ps-domain';
import { missionExpiryManager, MISSION_STREAM_OPTIONS } from './mission-expiry.process-manager.js';

const APPROVER = 'http://person-server.test';
const AGENT = 'aauth:assistant@agents.example';
const T0 = new Date('2026-11-22T09:00:00.000Z');
const EXPIRES_AT = new Date('2026-11-22T10:00:00.000Z');
const AGENT_CALLER = { role: 'agent', id: AGENT } as const;

/** A real embedded store in a temp dir; `restart` closes and reopens it over the same file (a service restart). */
interface TempStore {
  store: EventStore;
  restart(): Promise<EventStore>;
  dispose(): Promise<void>;
}

async function openTempStore(): Promise<TempStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ps-expiry-'));
  const handle: TempStore = {
    store: await EmbeddedEventStore.open({ dataDir, subscriptionPollMs: 20 }),
    async restart() {
      await handle.store.close();
      handle.store = await EmbeddedEventStore.open({ dataDir, subscriptionPollMs: 20 });
      return handle.store;
    },
    async dispose() {
      await handle.store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}

let temp: TempStore;
let now: Date;
const clock = (): Date => now;
const runners: ProcessManagerRunner[] = [];

beforeEach(async () => {
  temp = await openTempStore();
  now = T0;
});

afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.stop()));
  await temp.dispose();
});

const s256 = (): string => randomBytes(32).toString('base64url');
const requestId = (): string => randomBytes(24).toString('base64url');
const context = (at: Date, actor = { id: 'alice', role: 'person' }): CommandContext => ({ correlationId: 'corr', causationId: 'cause', actor, now: at });

function run(store: EventStore, digest: string, command: MissionCommand, at: Date) {
  return handleCommand(store, missionStreamName(digest), missionDecider, command, context(at), MISSION_STREAM_OPTIONS);
}

async function approve(store: EventStore, digest: string, expiresAt: Date | null = EXPIRES_AT): Promise<void> {
  await run(store, digest, { type: 'ApproveMission', approver: APPROVER, missionS256: digest, agent: AGENT, approvedBy: 'alice', tenant: 't1', ...(expiresAt ? { expiresAt } : {}), now: T0 }, T0);
}

async function log(store: EventStore, digest: string): Promise<RecordedEvent[]> {
  const read: RecordedEvent[] = [];
  for await (const event of store.readStream(missionStreamName(digest))) read.push(event);
  return read;
}

function startRunner(store: EventStore): ProcessManagerRunner {
  const runner = new ProcessManagerRunner(store, missionExpiryManager(store, clock), { clock, pollMs: 10 });
  runners.push(runner);
  return runner;
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const workFor = (digest: string) => ({ key: digest, payload: { mission_s256: digest, expires_at: EXPIRES_AT.toISOString() }, attempt: 1 });

describe('spec 3: expires_at reached → terminated expired, attributed to the PS scheduler (process manager ps_mission_expiry)', () => {
  it('spec 3, 6: without any request, MissionTerminated {reason: expired, terminated_at = expires_at, actor PS scheduler} is recorded once expires_at passes; the log verifies', async () => {
    const digest = s256();
    const runner = startRunner(temp.store);
    await runner.start();
    await approve(temp.store, digest);
    await eventually(() => runner.openWork().size === 1);
    // Not before expires_at.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await log(temp.store, digest)).map((event) => event.type)).toEqual(['MissionApproved']);

    now = new Date(EXPIRES_AT.getTime() + 5);
    await eventually(async () => (await log(temp.store, digest)).length === 2);
    const [, terminated] = await log(temp.store, digest);
    expect(terminated!.type).toBe('MissionTerminated');
    expect(terminated!.data).toMatchObject({
      approver: APPROVER,
      mission_s256: digest,
      sequence: 2,
      reason: 'expired',
      terminated_at: EXPIRES_AT.toISOString(),
      actor: { id: 'ps-scheduler', role: 'system' },
      authorization: { decision: 'permit', policy: 'ps:expires-at' },
    });
    expect(terminated!.data['request_id']).toBeUndefined();
    expect(terminated!.metadata['actor']).toEqual({ id: 'ps-scheduler', role: 'system' });
    await expect(verifyHashChain(temp.store, missionStreamName(digest))).resolves.toMatchObject({ ok: true });
    await eventually(() => runner.openWork().size === 0);
  });

  it('spec 3 (expires_at row): a mission without expires_at schedules nothing', async () => {
    const manager = missionExpiryManager(temp.store, clock);
    const digest = s256();
    await approve(temp.store, digest, null);
    const [approved] = await log(temp.store, digest);
    expect(manager.plan(approved!)).toEqual([]);
  });

  it('spec 3 rule 2: a terminate that committed first wins; the scheduled expiry then records nothing', async () => {
    const digest = s256();
    const runner = startRunner(temp.store);
    await runner.start();
    await approve(temp.store, digest);
    now = new Date(EXPIRES_AT.getTime() - 60_000);
    await run(temp.store, digest, { type: 'TerminateMission', caller: AGENT_CALLER, reason: 'revoked', requestId: requestId(), now }, now);
    now = new Date(EXPIRES_AT.getTime() + 1000);
        await eventually(async () => {
      for await (const event of temp.store.readStream(`pm_ps_mission_expiry-${digest}`)) if (event.type === 'WorkCompleted') return true;
      return false;
    });
    const types = (await log(temp.store, digest)).map((event) => event.type);
    expect(types).toEqual(['MissionApproved', 'MissionTerminated']);
    expect((await log(temp.store, digest))[1]!.data).toMatchObject({ reason: 'revoked' });
  });

  it('spec 3 rule 2 (idempotent): running the expiry work twice, or after a decision path already applied expiry, records one MissionTerminated', async () => {
    const digest = s256();
    const other = s256();
    await approve(temp.store, digest);
    await approve(temp.store, other);
    const manager = missionExpiryManager(temp.store, clock);
    now = new Date(EXPIRES_AT.getTime() + 1);
    await manager.perform(workFor(digest), AbortSignal.timeout(5000));
    await manager.perform(workFor(digest), AbortSignal.timeout(5000));
    expect((await log(temp.store, digest)).map((event) => event.type)).toEqual(['MissionApproved', 'MissionTerminated']);

    // A status read after expires_at recorded the expiry first (expiry first on every decision path); the work adds nothing.
    await run(temp.store, other, { type: 'ReadMissionStatus', caller: AGENT_CALLER, now }, now);
    await manager.perform(workFor(other), AbortSignal.timeout(5000));
    expect((await log(temp.store, other)).map((event) => event.type)).toEqual(['MissionApproved', 'MissionTerminated', 'MissionStatusRead']);
  });

  it('spec 3: work that runs before expires_at (clock skew) records nothing and fails so that it is retried', async () => {
    const digest = s256();
    await approve(temp.store, digest);
    const manager = missionExpiryManager(temp.store, clock);
    now = new Date(EXPIRES_AT.getTime() - 1);
    await expect(manager.perform(workFor(digest), AbortSignal.timeout(5000))).rejects.toThrow('has not reached expires_at');
    expect((await log(temp.store, digest)).map((event) => event.type)).toEqual(['MissionApproved']);
  });

  it('spec 3, DESIGN 1 (durable work): the runner stopped before the due time and restarted (store reopened) records the expiry', async () => {
    const scheduledBeforeStop = s256();
    const approvedWhileDown = s256();
    const first = startRunner(temp.store);
    await first.start();
    await approve(temp.store, scheduledBeforeStop);
    await eventually(() => first.openWork().size === 1);
    await first.stop();
    runners.splice(runners.indexOf(first), 1);
    // Approved while no runner is running: the checkpointed trigger subscription picks it up after the restart.
    await approve(temp.store, approvedWhileDown);

    const store = await temp.restart();
    now = new Date(EXPIRES_AT.getTime() + 10);
    const second = startRunner(store);
    await second.start();
    for (const digest of [scheduledBeforeStop, approvedWhileDown]) {
      await eventually(async () => (await log(store, digest)).some((event) => event.type === 'MissionTerminated'));
    }
    await eventually(() => second.openWork().size === 0);
    for (const digest of [scheduledBeforeStop, approvedWhileDown]) {
      const terminated = (await log(store, digest)).filter((event) => event.type === 'MissionTerminated');
      expect(terminated).toHaveLength(1);
      expect(terminated[0]!.data).toMatchObject({ reason: 'expired', terminated_at: EXPIRES_AT.toISOString(), actor: { id: 'ps-scheduler', role: 'system' } });
    }
  });

  it('spec 3 rule 2: a terminate and the expiry at the same instant — exactly one MissionTerminated per mission, the loser observes the winner\'s terminal status; logs verify', async () => {
    const manager = missionExpiryManager(temp.store, clock);
    now = EXPIRES_AT;
    const digests = Array.from({ length: 12 }, s256);
    for (const digest of digests) await approve(temp.store, digest);
    // The terminate request arrives 1 ms before expires_at (an active mission), the scheduler fires at expires_at: both race for one revision.
    const requestAt = new Date(EXPIRES_AT.getTime() - 1);
    const outcomes = await Promise.all(
      digests.map(async (digest) => {
        const [terminate] = await Promise.all([
          run(temp.store, digest, { type: 'TerminateMission', caller: AGENT_CALLER, reason: 'revoked', requestId: requestId(), now: requestAt }, requestAt),
          manager.perform(workFor(digest), AbortSignal.timeout(10_000)),
        ]);
        return { digest, answer: terminationResult(terminate.state, requestAt) };
      }),
    );
    const reasons = new Set<string>();
    for (const { digest, answer } of outcomes) {
      const events = await log(temp.store, digest);
      const terminated = events.filter((event) => event.type === 'MissionTerminated');
      expect(terminated).toHaveLength(1);
      // Whoever committed first is what every later observer sees.
      expect(answer).toMatchObject({ termination_reason: terminated[0]!.data['reason'], terminated_at: terminated[0]!.data['terminated_at'] });
      expect(events.map((event) => event.data['sequence'])).toEqual(events.map((_, index) => index + 1));
      await expect(verifyHashChain(temp.store, missionStreamName(digest))).resolves.toMatchObject({ ok: true });
      reasons.add(String(terminated[0]!.data['reason']));
    }
    expect([...reasons].every((reason) => reason === 'revoked' || reason === 'expired')).toBe(true);
  });

  it('spec 3 rule 2: a terminate decided at expires_at itself finds the mission expired (expiry first) and logs LateTerminationRequested', async () => {
    const digest = s256();
    await approve(temp.store, digest);
    const result = await run(temp.store, digest, { type: 'TerminateMission', caller: AGENT_CALLER, reason: 'revoked', requestId: requestId(), now: EXPIRES_AT }, EXPIRES_AT);
    expect(terminationResult(result.state, EXPIRES_AT)).toMatchObject({ termination_reason: 'expired' });
    now = EXPIRES_AT;
    await missionExpiryManager(temp.store, clock).perform(workFor(digest), AbortSignal.timeout(5000));
    expect((await log(temp.store, digest)).map((event) => event.type)).toEqual(['MissionApproved', 'MissionTerminated', 'LateTerminationRequested']);
  });

  it('spec 2.8: the expiry records the token-impact summary of the tokens on pstokens-<s256> (tracked, none left to revoke once they expired with the mission)', async () => {
    const digest = s256();
    await approve(temp.store, digest);
    for (const [jti, exp] of [['t-1', new Date(EXPIRES_AT.getTime() - 60_000)], ['t-2', EXPIRES_AT]] as const) {
      await handleCommand(
        temp.store,
        tokensStreamName(digest),
        trackedTokenDecider,
        {
          type: 'RecordIssuedToken',
          approver: APPROVER,
          missionS256: digest,
          token: { iss: APPROVER, jti, aud: 'https://files.example', exp, origin: 'issued', agent: AGENT, relationship: 'root' },
          actor: { id: AGENT, role: 'agent' },
          policy: TOKEN_POLICIES.owningAgent,
          now: T0,
        },
        context(T0, { id: AGENT, role: 'agent' }),
        { hashChain: true },
      );
    }
    now = new Date(EXPIRES_AT.getTime() + 5);
    await missionExpiryManager(temp.store, clock).perform(workFor(digest), AbortSignal.timeout(5000));
    const [, terminated] = await log(temp.store, digest);
    expect(terminated!.data).toMatchObject({ reason: 'expired', token_impact: { tracked: 2, to_revoke: 0, tokens_sequence: 2 } });
  });
});

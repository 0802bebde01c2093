/**
 * Revocation of a large Child Mission tree (spec 3.2 immediate cascade, DESIGN 2.4), measured on an
 * issuer started in this process on the embedded store, so the bench can seed the tree directly into
 * its store and watch the `MissionCascaded` events land:
 *
 *   root (HTTP) → C children → 99 grandchildren each.
 *
 * Two children and their grandchildren (200 descendants) are created over HTTP and hold real
 * refresh tokens; the rest are seeded with the events the service writes for a creation and a
 * redemption (ChildMissionAttached on the parent, MissionCreated, ChildGrantIssued, ChildGrantRedeemed).
 * Then `POST /missions/lifecycle operation=revoke` on the root, and:
 *   (a) the 200 refreshes, signed beforehand and sent as soon as the revoke answered, must all be
 *       refused — by the lineage check at derivation, without waiting for the cascade;
 *   (b) every descendant's stream must record `MissionCascaded` (the `mission_cascade` process manager).
 * Times are the store's commit times (`RecordedEvent.created`) and this process's wall clock.
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cpuUsage } from 'node:process';
import { pathToFileURL } from 'node:url';
import type { EventStore, RecordedEvent } from '@mission/event-store';
import { clientAssertion, type ClientKey } from '@mission/mission-client';
import { bootstrapService, EVENT_STORE, type RunningService, type ServiceDefinition } from '@mission/platform';
import { GcPauses } from './gc-pauses.js';
import { WindowProfiler, type WindowProfileDirs } from './window-profiler.js';
import { CascadeTreeBuilder, CHILD_ACTOR, GRANDCHILD_ACTOR, GRANDCHILDREN_PER_CHILD, REAL_CHILDREN, type Tree } from './cascade-tree.js';
import { demoClient, FORM, form, refreshRequest, type MissionHolder } from './flows.js';
import { preparedRefresh, RefreshClient } from './refresh-client.js';

/** Process managers that follow the `mission` category; the tree is measured once they have caught up. */
const MISSION_PROCESS_MANAGERS = ['mission_cascade', 'child_slot_release', 'child_grant_lapse', 'mission_expiry'];
const CASCADE_TIMEOUT_MS = 300_000;

export interface CascadeBenchOptions {
  readonly repositoryRoot: string;
  readonly dataDir: string;
  readonly port: number;
  /** Refreshes in flight at once for (a). */
  readonly concurrency: number;
  /** Where profiles of each revoke-to-cascaded window go: a V8 CPU profile, a sampling heap profile of what it allocated. */
  readonly profileDirs?: WindowProfileDirs;
  /** Children of the root per tree; every child has 99 grandchildren (10 → 1,000 descendants, 100 → 10,000). */
  readonly trees: readonly number[];
}

export async function cascadeBench(options: CascadeBenchOptions): Promise<void> {
  const issuer = `http://127.0.0.1:${options.port}`;
  // Not part of the bench's own build (apps are not importable from tools): the built issuer, loaded by path.
  const { issuerService } = (await import(pathToFileURL(join(options.repositoryRoot, 'apps/issuer/dist/issuer-service.js')).href)) as {
    issuerService: ServiceDefinition<unknown>;
  };
  const service = await bootstrapService(issuerService, {
    env: { PORT: String(options.port), BASE_URL: issuer, DATA_DIR: options.dataDir, CONFIG_FILE: join(options.repositoryRoot, 'config/issuer.json'), LOG_LEVEL: 'warn' },
    logDestination: { write: (line: string) => void process.stderr.write(line) },
  });
  const refreshClient = await RefreshClient.start(`${issuer}/.well-known/oauth-authorization-server`);
  try {
    const bench = new TreeBench(service, issuer, await demoClient(options.repositoryRoot, 'demo-agent'), await demoClient(options.repositoryRoot, CHILD_ACTOR), await demoClient(options.repositoryRoot, GRANDCHILD_ACTOR), options.concurrency, options.profileDirs ?? {}, refreshClient);
    console.log(
      `revoking a root with its Child Mission tree (issuer in this process, embedded store; ${REAL_CHILDREN} children + their ` +
        `${REAL_CHILDREN * GRANDCHILDREN_PER_CHILD} grandchildren created over HTTP with refresh tokens, the rest SEEDED directly into the store; ` +
        'the refreshes sent from a worker thread, a client with an event loop of its own)',
    );
    // Each size twice: (b) while the 200 refreshes of (a) hit the same process, then (b) alone on a fresh tree.
    for (const children of options.trees) {
      await bench.run(children, { refreshes: true });
      await bench.run(children, { refreshes: false });
    }
    console.log(`bench + issuer resident memory after the cascades: ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`);
  } finally {
    await refreshClient.close();
    await service.stop('benchmark finished');
  }
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

class TreeBench {
  private readonly store: EventStore;
  private readonly trees: CascadeTreeBuilder;

  constructor(
    service: RunningService,
    private readonly issuer: string,
    private readonly agent: ClientKey,
    subagent: ClientKey,
    worker: ClientKey,
    private readonly concurrency: number,
    private readonly profileDirs: WindowProfileDirs,
    private readonly refreshClient: RefreshClient,
  ) {
    this.store = service.app.get(EVENT_STORE);
    this.trees = new CascadeTreeBuilder(this.store, issuer, agent, subagent, worker);
  }

  async run(childCount: number, options: { refreshes: boolean }): Promise<void> {
    const total = childCount * (1 + GRANDCHILDREN_PER_CHILD);
    const label = `${total.toLocaleString('en')} descendants${options.refreshes ? '' : ' (no concurrent refreshes)'}`;
    const tree = await this.trees.build(childCount);
    const started = Date.now();
    await this.settle();
    const seeded = tree.descendants.size - tree.real.length;
    console.log(
      `${label}: tree built: ${tree.real.length} over HTTP in ${seconds(tree.httpMs)} s, ${seeded.toLocaleString('en')} SEEDED into the store in ${seconds(tree.seedMs)} s ` +
        `(${Math.round(seeded / (tree.seedMs / 1000)).toLocaleString('en')}/s); background work caught up ${seconds(Date.now() - started)} s later`,
    );
    if (tree.descendants.size !== total) throw new Error(`expected ${total} descendants, built ${tree.descendants.size}`);

    // Baseline: the same 200 refreshes, accepted, with the tree active (this also rotates their tokens).
    const baseline = await this.refreshAll(await Promise.all(tree.real.map((holder) => refreshRequest(this.issuer, holder))), { probe: true, holders: tree.real });

    const head = await this.store.headPosition();
    const cascaded = this.watchCascade(tree, head === undefined ? {} : { after: head });
    // Signed beforehand, so the refusal times are the issuer's, not this process's signing.
    const refreshes = await Promise.all(tree.real.map((holder) => refreshRequest(this.issuer, holder)));

    const profiler = await WindowProfiler.start(this.profileDirs);
    // The issuer runs in this process: the event loop's delay is the delay every request and the cascade itself see.
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const gc = new GcPauses();
    const cpuBefore = cpuUsage();
    const revokeSent = Date.now();
    const revoked = await fetch(`${this.issuer}/missions/lifecycle`, {
      method: 'POST',
      headers: FORM,
      body: form({ ...(await clientAssertion(this.agent, this.issuer)), mission_id: tree.root.missionId, operation: 'revoke', reason: 'benchmark: revoke the tree' }),
    });
    const revokeAnswered = Date.now();
    if (revoked.status !== 200) throw new Error(`revoke answered ${revoked.status}: ${await revoked.text()}`);
    const refused = options.refreshes ? await this.refreshAll(refreshes, { probe: true }) : [];
    const result = await cascaded;
    const cpu = cpuUsage(cpuBefore);
    loopDelay.disable();
    gc.stop();
    const commit = result.revokedAt;
    if (profiler) {
      const { files, allocatedBytes } = await profiler.stop(`cascade-${total}${options.refreshes ? '-with-refreshes' : '-alone'}`);
      console.log(`${label}: profiles of the revoke-to-cascaded window written to ${files.join(', ')}`);
      if (allocatedBytes !== undefined) {
        console.log(`${label}:     allocated in the window (sampling heap profile): ${(allocatedBytes / 2 ** 20).toFixed(0)} MiB = ${(allocatedBytes / 1024 / total).toFixed(1)} KiB per descendant`);
      }
    }

    console.log(
      `${label}: revoke answered in ${revokeAnswered - revokeSent} ms (committed ${commit - revokeSent} ms after it was sent, ${result.rootOpenChildren} open children recorded on MissionRevoked)`,
    );
    if (options.refreshes) {
      const times = refused.map((r) => r.at - commit);
      const outcomes = new Map<string, number>();
      for (const r of refused) outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
      const beforeOwnCascade = tree.real.filter((holder, i) => refused[i]!.at < (result.cascadedAt.get(holder.missionId) ?? Infinity)).length;
      console.log(
        `${label}: (a) refreshes of the ${refused.length} HTTP-created descendants, sent as soon as the revoke answered (one grandchild alone, then ${this.concurrency} at a time): ` +
          `first refused ${times[0]} ms, all refused ${Math.max(...times)} ms after the commit; ${beforeOwnCascade} of ${refused.length} refused before their own MissionCascaded was committed; ` +
          `${[...outcomes].map(([o, n]) => `${n} × ${o}`).join('; ')}`,
      );
    }
    const baselineTimes = baseline.map((answer) => answer.at - answer.sentAt);
    console.log(
      `${label}:     the same refreshes just before the revoke: ${baseline.filter((answer) => answer.status === 200).length} of ${baseline.length} accepted, ` +
        `first answered ${baselineTimes[0]} ms, all ${Math.max(...baselineTimes)} ms after sending`,
    );
    const ms = (ns: number) => (ns / 1e6).toFixed(0);
    console.log(
      `${label}:     event-loop delay of the issuer process from the revoke until all were cascaded: ` +
        `p50 ${ms(loopDelay.percentile(50))} ms, p99 ${ms(loopDelay.percentile(99))} ms, max ${ms(loopDelay.max)} ms`,
    );
    console.log(`${label}:     GC pauses in the same window: ${gc.describe()}`);
    if (result.missing > 0) {
      console.log(`${label}: (b) NOT COMPLETE: ${result.missing.toLocaleString('en')} descendants not cascaded ${CASCADE_TIMEOUT_MS / 1000} s after the commit`);
      return;
    }
    const all = result.lastCascadedAt - commit;
    console.log(
      `${label}: (b) all ${total.toLocaleString('en')} recorded cascaded ${all.toLocaleString('en')} ms after the commit ` +
        `(children by ${result.lastAtDepth.get(1)! - commit} ms, grandchildren from ${result.firstAtDepth.get(2)! - commit} to ${result.lastAtDepth.get(2)! - commit} ms): ` +
        `${Math.round(total / (all / 1000)).toLocaleString('en')} descendants/s`,
    );
    // What the work cost in CPU, beside how fast it went (on a shared machine the rate mixes the two; both still spread).
    const cpuMicros = cpu.user + cpu.system;
    console.log(
      `${label}:     CPU of this process (issuer + the bench's watcher${options.refreshes ? ' + the refreshes\' client thread' : ''}) from the revoke until all were cascaded: ` +
        `${ms(cpuMicros * 1e3)} ms = ${Math.round(cpuMicros / total)} µs per descendant`,
    );
  }

  /**
   * Sends prepared refreshes: with `probe`, the first one alone (its latency is not queued behind the
   * others), then the rest `concurrency` at a time; answers in the order given. With `holders`, an
   * accepted refresh's new refresh token replaces the old one (rotation).
   */
  private async refreshAll(requests: readonly RequestInit[], options: { probe?: boolean; holders?: readonly MissionHolder[] } = {}): Promise<RefreshAnswer[]> {
    const replies = await this.refreshClient.send(`${this.issuer}/token`, requests.map(preparedRefresh), { probe: options.probe ?? false, concurrency: this.concurrency });
    return replies.map((reply, index) => {
      if (reply.status === 200 && options.holders && reply.body.refresh_token) options.holders[index]!.refreshToken = reply.body.refresh_token;
      return { sentAt: reply.sentAt, at: reply.at, status: reply.status, outcome: reply.status === 200 ? '200 ACCEPTED' : `${reply.status} ${reply.body.error}: ${reply.body.error_description}` };
    });
  }

  /**
   * Until the process managers following `mission` have taken in the tree: each has checkpointed past the newest
   * mission event (a name that has no checkpoint is skipped, in case one was renamed), or — a manager that reads only
   * the event types it handles (ADR 0061) checkpoints at the last of those, never past the newer events it does not
   * read — no checkpoint moved for two seconds; and nothing was appended for a second.
   */
  private async settle(): Promise<void> {
    const deadline = Date.now() + 300_000;
    let lastHead: bigint | undefined;
    let quietSince = Date.now();
    let lastCheckpoints = '';
    let checkpointsStillSince = Date.now();
    // Once: a category-filtered head is a scan of the category on the embedded store.
    const missionHead = await this.store.headPosition({ streamCategories: ['mission'] });
    for (;;) {
      const head = (await this.store.headPosition())?.commit;
      if (head !== lastHead) quietSince = Date.now();
      lastHead = head;
      const checkpoints = await Promise.all(MISSION_PROCESS_MANAGERS.map((name) => this.store.checkpoints.load(`pm_${name}_triggers`)));
      const seen = checkpoints.map((checkpoint) => String(checkpoint?.commit)).join(',');
      if (seen !== lastCheckpoints) checkpointsStillSince = Date.now();
      lastCheckpoints = seen;
      const pastHead = missionHead === undefined || checkpoints.every((checkpoint) => checkpoint === undefined || checkpoint.commit >= missionHead.commit);
      const caughtUp = pastHead || Date.now() - checkpointsStillSince >= 2000;
      if (caughtUp && Date.now() - quietSince >= 1000) return;
      if (Date.now() > deadline) throw new Error('the process managers did not catch up with the tree within 300 s');
      await new Promise((done) => setTimeout(done, 100));
    }
  }

  /** Follows the store from `after` until every descendant has its MissionCascaded (or the timeout). */
  private async watchCascade(tree: Tree, after: { after?: RecordedEvent['position'] }): Promise<CascadeResult> {
    const subscription = this.store.subscribeToAll({ ...after, filter: { streamCategories: ['mission'] } });
    const pending = new Set(tree.descendants.keys());
    const cascadedAt = new Map<string, number>();
    const firstAtDepth = new Map<number, number>();
    const lastAtDepth = new Map<number, number>();
    let revokedAt: number | undefined;
    let rootOpenChildren = 0;
    let lastCascadedAt = 0;
    const timer = setTimeout(() => void subscription.close(), CASCADE_TIMEOUT_MS);
    try {
      for await (const event of subscription) {
        const missionId = String(event.data['mission_id']);
        const at = event.created.getTime();
        if (event.type === 'MissionRevoked' && missionId === tree.root.missionId) {
          revokedAt = at;
          rootOpenChildren = Number(event.data['open_children'] ?? 0);
        }
        if (event.type !== 'MissionCascaded' || !pending.delete(missionId)) continue;
        const depth = tree.descendants.get(missionId)!;
        cascadedAt.set(missionId, at);
        if (!firstAtDepth.has(depth)) firstAtDepth.set(depth, at);
        lastAtDepth.set(depth, Math.max(lastAtDepth.get(depth) ?? 0, at));
        lastCascadedAt = Math.max(lastCascadedAt, at);
        if (pending.size === 0) break;
      }
    } finally {
      clearTimeout(timer);
      await subscription.close();
    }
    if (revokedAt === undefined) throw new Error('MissionRevoked of the root was not seen');
    return { revokedAt, rootOpenChildren, cascadedAt, firstAtDepth, lastAtDepth, lastCascadedAt, missing: pending.size };
  }
}

interface RefreshAnswer {
  readonly sentAt: number;
  readonly at: number;
  readonly status: number;
  readonly outcome: string;
}

interface CascadeResult {
  /** Commit time of the root's MissionRevoked (store clock, ms). */
  readonly revokedAt: number;
  readonly rootOpenChildren: number;
  readonly cascadedAt: ReadonlyMap<string, number>;
  readonly firstAtDepth: ReadonlyMap<number, number>;
  readonly lastAtDepth: ReadonlyMap<number, number>;
  readonly lastCascadedAt: number;
  readonly missing: number;
}

/**
 * Open-loop load for the soak (issue 15 item 3): request k is due at `start + k / rate`, whatever the replies
 * before it did; at most `concurrency` are in flight (one per caller). A caller takes the next due slot, sleeps
 * until it is due, signs the request just then (RFC 9421 `created` is now, so an hour of load never leaves the
 * ±60 s window) and sends it. If every caller is still waiting for a reply when a slot falls due, that slot
 * starts late: the lag is recorded, so a server that cannot keep up shows as lag, not as a lower target rate.
 */
import type { BenchAgent } from './fixture.js';
import { nowMicros } from './context.js';
import { signAsAgent, type HttpSender } from './signed-client.js';

/** Who sends what: slot k uses `targets[k mod targets.length]`. */
export interface PacedTarget {
  readonly agent: BenchAgent;
  readonly body: string;
}

export interface PacedLoadOptions {
  readonly sender: HttpSender;
  readonly targets: readonly PacedTarget[];
  /** Requests per second to start. */
  readonly rate: number;
  readonly concurrency: number;
  readonly seconds: number;
  /** Called on the FIRST failure of each kind, at once (a soak must not hide an error until its end). */
  readonly onNewFailure?: (what: string, example: string) => void;
}

/** What happened since the last {@link PacedLoad.takeWindow}. */
export interface LoadWindow {
  readonly ok: number;
  readonly errors: number;
  /** Latencies of the 200s, ascending, in ms (from handing the signed bytes to the socket to the last byte). */
  readonly latenciesMs: number[];
  /** The latest a slot started after it was due, in ms. */
  readonly maxLagMs: number;
}

const LATE_MS = 1000;

export class PacedLoad {
  readonly failures = new Map<string, { count: number; example: string }>();
  ok = 0;
  errors = 0;
  /** Slots that started more than a second after they were due. */
  late = 0;
  maxLagMs = 0;
  private window = { ok: 0, errors: 0, latenciesMs: [] as number[], maxLagMs: 0 };
  private next = 0;
  private started = 0;
  private end = 0;

  constructor(private readonly options: PacedLoadOptions) {}

  async run(): Promise<void> {
    this.started = nowMicros();
    this.end = this.started + this.options.seconds * 1e6;
    await Promise.all(Array.from({ length: this.options.concurrency }, () => this.caller()));
  }

  /** Ends the load early: no slot due from now on starts. */
  stop(): void {
    this.end = Math.min(this.end, nowMicros());
  }

  takeWindow(): LoadWindow {
    const window = this.window;
    this.window = { ok: 0, errors: 0, latenciesMs: [], maxLagMs: 0 };
    window.latenciesMs.sort((a, b) => a - b);
    return window;
  }

  private async caller(): Promise<void> {
    const { sender, targets, rate } = this.options;
    for (;;) {
      const slot = this.next++;
      const due = this.started + (slot * 1e6) / rate;
      if (due >= this.end) return;
      const wait = due - nowMicros();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait / 1e3));
      if (due >= this.end) return;
      const lagMs = (nowMicros() - due) / 1e3;
      if (lagMs > LATE_MS) this.late++;
      this.maxLagMs = Math.max(this.maxLagMs, lagMs);
      this.window.maxLagMs = Math.max(this.window.maxLagMs, lagMs);
      const target = targets[slot % targets.length]!;
      const request = signAsAgent(sender.baseUrl, target.agent, { body: target.body });
      const sent = nowMicros();
      try {
        const reply = await sender.send(request);
        const latencyMs = (nowMicros() - sent) / 1e3;
        if (reply.status !== 200) this.fail(`HTTP ${reply.status}`, reply.body.toString('utf8').slice(0, 300));
        else if (!reply.body.includes('"mission_status":"active"')) this.fail('200 without "mission_status":"active"', reply.body.toString('utf8').slice(0, 300));
        else {
          this.ok++;
          this.window.ok++;
          this.window.latenciesMs.push(latencyMs);
        }
      } catch (error) {
        this.fail('transport error', (error as Error).message);
      }
    }
  }

  private fail(what: string, example: string): void {
    this.errors++;
    this.window.errors++;
    const entry = this.failures.get(what);
    if (entry !== undefined) entry.count++;
    else {
      this.failures.set(what, { count: 1, example });
      this.options.onNewFailure?.(what, example);
    }
  }
}

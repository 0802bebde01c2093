import { Injectable } from '@nestjs/common';

export interface ReadinessResult {
  readonly ok: boolean;
  /** Short, operator-facing reason; shown on /readyz, so never a secret or a stack. */
  readonly detail?: string;
}

/** Something that must hold before the service takes traffic: the event store answers, a projection caught up… */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<ReadinessResult>;
}

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: readonly ({ readonly name: string } & ReadinessResult)[];
}

export const READINESS_CHECK_TIMEOUT_MS = 2000;

/**
 * The checks behind /readyz. Modules add theirs at start (`onModuleInit`); all run in parallel on every
 * probe, each bounded in time so one hung dependency cannot hang the probe.
 */
@Injectable()
export class ReadinessRegistry {
  private readonly checks = new Map<string, ReadinessCheck>();
  private shuttingDown = false;

  register(check: ReadinessCheck): void {
    if (this.checks.has(check.name)) throw new Error(`readiness check ${JSON.stringify(check.name)} is already registered`);
    this.checks.set(check.name, check);
  }

  /** From here on the service reports not ready, so a load balancer stops sending new work. */
  markShuttingDown(): void {
    this.shuttingDown = true;
  }

  async evaluate(timeoutMs = READINESS_CHECK_TIMEOUT_MS): Promise<ReadinessReport> {
    const results = await Promise.all([...this.checks.values()].map(async (check) => ({ name: check.name, ...(await runBounded(check, timeoutMs)) })));
    if (this.shuttingDown) results.push({ name: 'shutdown', ok: false, detail: 'the service is shutting down' });
    return { ready: results.every((result) => result.ok), checks: results };
  }
}

async function runBounded(check: ReadinessCheck, timeoutMs: number): Promise<ReadinessResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ReadinessResult>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    const result = await Promise.race([check.check(), timeout]);
    return result.detail === undefined ? { ok: result.ok === true } : { ok: result.ok === true, detail: result.detail };
  } catch (error) {
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

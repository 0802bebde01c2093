import { randomUUID } from 'node:crypto';
import type { BeforeApplicationShutdown } from '@nestjs/common';
import type { EventStore, JsonObject } from '@mission/event-store';
import type { Logger } from '@mission/platform';
import { callerKey, type AuthenticatedCaller } from '../identity/authenticated-caller.js';
import type { Clock } from '../time/clock.js';
import type { AuditDigestKey } from './audit-digest-key.js';

/** DESIGN 1: the Person Server's security audit log, separate from every mission log (spec 6). */
export const SECURITY_AUDIT_STREAM = 'security-audit';
/** DESIGN 1: past-tense PascalCase event type. */
export const SECURITY_EVENT_RECORDED = 'SecurityEventRecorded';

/**
 * What happened (spec 5.5, 5.9, 6): a refused signature, a rate-limit excess, a probe for a reference
 * that is absent or not the caller's, or an authenticated caller refused by policy. Open for more kinds.
 */
export type SecurityEventKind = 'signature_failed' | 'rate_limited' | 'mission_probe' | 'malformed_reference' | 'access_denied' | (string & {});

export interface SecurityEventInput {
  readonly kind: SecurityEventKind;
  /** A short token: the Signature-Error reason, the limit exceeded, why a probe failed (`absent`/`not_authorized`). */
  readonly reason?: string;
  /** The authenticated caller, when there is one. */
  readonly caller?: AuthenticatedCaller;
  /** The remote address. */
  readonly source?: string;
  readonly method?: string;
  /** The request path; any query string is dropped. */
  readonly path?: string;
  readonly requestId?: string;
  /** The raw `mission_s256` the request named: only its keyed digest is stored, never this value. */
  readonly missionS256?: string;
}

/** The `data` of a `SecurityEventRecorded` event in the `security-audit` stream. */
export interface SecurityEventData {
  kind: string;
  occurred_at: string;
  reason?: string;
  caller_key?: string;
  caller_role?: 'agent' | 'person' | 'admin';
  source?: string;
  method?: string;
  path?: string;
  request_id?: string;
  /** base64url HMAC-SHA-256 of the Mission Reference under the deployment's audit key. */
  mission_ref_hmac?: string;
  /** Which audit key made `mission_ref_hmac` (not secret). */
  hmac_key_id?: string;
  /** Identical events (same kind, reason, caller, source, reference) not written since the previous one. */
  suppressed?: number;
}

export interface SecurityAuditOptions {
  /** Identical events are written at most once per this interval; default 60 s. */
  readonly repeatIntervalMs?: number;
  /** Distinct identical-event keys tracked for that; default 10 000. */
  readonly maxTrackedKeys?: number;
  /** Appends in flight beyond this are dropped (and logged); default 1 000. */
  readonly maxPendingAppends?: number;
}

const MAX_PATH_LENGTH = 256;
const MAX_TEXT_LENGTH = 128;

function truncate(value: string, max: number): string {
  return value.length > max ? value.slice(0, max) : value;
}

/**
 * Appends `SecurityEventRecorded` events to the `security-audit` stream (spec 5.5, 5.9, 6; DESIGN 3.3):
 * kind, caller key and role, source address, time, and a keyed digest of any Mission Reference — never
 * the raw reference, never tokens, signatures or bodies.
 *
 * `record` never blocks or fails the request: the append runs in the background and a failure is logged.
 * A flood cannot become a flood of writes: identical events are written once per interval with a
 * `suppressed` count, and appends in flight are capped.
 */
export class SecurityAudit implements BeforeApplicationShutdown {
  private readonly repeatIntervalMs: number;
  private readonly maxTrackedKeys: number;
  private readonly maxPendingAppends: number;
  /** Identical-event key → when last written and how many were suppressed since (least recently written first). */
  private readonly lastWritten = new Map<string, { atMs: number; suppressed: number }>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly store: EventStore,
    private readonly digestKey: AuditDigestKey,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: SecurityAuditOptions = {},
  ) {
    this.repeatIntervalMs = options.repeatIntervalMs ?? 60_000;
    this.maxTrackedKeys = options.maxTrackedKeys ?? 10_000;
    this.maxPendingAppends = options.maxPendingAppends ?? 1_000;
  }

  /** The keyed digest under which a Mission Reference appears in the audit (spec 5.9: never the raw reference). */
  missionReferenceDigest(missionS256: string): string {
    return this.digestKey.digest('mission_s256', missionS256);
  }

  /** Records a security event in the background; returns at once and never throws. */
  record(input: SecurityEventInput): void {
    try {
      const data = this.eventData(input);
      if (data === undefined) return;
      if (this.pending.size >= this.maxPendingAppends) {
        this.logger.warn({ kind: data.kind, pending: this.pending.size }, 'security audit: too many appends in flight; event dropped');
        return;
      }
      const append = this.append(data).finally(() => this.pending.delete(append));
      this.pending.add(append);
    } catch (error) {
      this.logger.error({ err: error, kind: input.kind }, 'security audit: event could not be prepared');
    }
  }

  /** Shutdown: the appends in flight finish before the event store closes (it closes on application shutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** Resolves when every append started so far has finished (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private eventData(input: SecurityEventInput): SecurityEventData | undefined {
    const now = this.clock.now();
    const digest = input.missionS256 !== undefined ? this.missionReferenceDigest(input.missionS256) : undefined;
    const key = input.caller !== undefined ? callerKey(input.caller) : undefined;
    const suppressed = this.throttle([input.kind, input.reason ?? '', key ?? '', input.source ?? '', digest ?? ''].join('\u0000'), now.getTime());
    if (suppressed === undefined) return undefined;
    const path = input.path?.split('?')[0];
    return {
      kind: truncate(input.kind, MAX_TEXT_LENGTH),
      occurred_at: now.toISOString(),
      ...(input.reason !== undefined ? { reason: truncate(input.reason, MAX_TEXT_LENGTH) } : {}),
      ...(key !== undefined ? { caller_key: key } : {}),
      ...(input.caller !== undefined ? { caller_role: input.caller.kind === 'agent' ? 'agent' : input.caller.role } : {}),
      ...(input.source !== undefined ? { source: truncate(input.source, MAX_TEXT_LENGTH) } : {}),
      ...(input.method !== undefined ? { method: truncate(input.method, 16) } : {}),
      ...(path !== undefined ? { path: truncate(path, MAX_PATH_LENGTH) } : {}),
      ...(input.requestId !== undefined ? { request_id: truncate(input.requestId, MAX_TEXT_LENGTH) } : {}),
      ...(digest !== undefined ? { mission_ref_hmac: digest, hmac_key_id: this.digestKey.id } : {}),
      ...(suppressed > 0 ? { suppressed } : {}),
    };
  }

  /** The number of identical events suppressed since the last write, or undefined to suppress this one. */
  private throttle(key: string, nowMs: number): number | undefined {
    const last = this.lastWritten.get(key);
    if (last !== undefined && nowMs - last.atMs < this.repeatIntervalMs) {
      last.suppressed++;
      return undefined;
    }
    this.lastWritten.delete(key);
    this.lastWritten.set(key, { atMs: nowMs, suppressed: 0 });
    // Bounded: forget the least recently written keys (at worst one more identical event gets written).
    for (const tracked of this.lastWritten.keys()) {
      if (this.lastWritten.size <= this.maxTrackedKeys) break;
      this.lastWritten.delete(tracked);
    }
    return last?.suppressed ?? 0;
  }

  private async append(data: SecurityEventData): Promise<void> {
    const requestId = data.request_id ?? randomUUID();
    try {
      await this.store.appendToStream(SECURITY_AUDIT_STREAM, [
        {
          type: SECURITY_EVENT_RECORDED,
          // Every member is a JSON string or number; absent members are left out, never undefined.
          data: data as unknown as JsonObject,
          metadata: {
            correlation_id: requestId,
            causation_id: requestId,
            actor: data.caller_key !== undefined ? { id: data.caller_key, role: data.caller_role ?? 'unknown' } : { id: `source:${data.source ?? 'unknown'}`, role: 'unauthenticated' },
            occurred_at: data.occurred_at,
          },
        },
      ]);
    } catch (error) {
      this.logger.error({ err: error, kind: data.kind }, 'security audit: event could not be appended');
    }
  }
}

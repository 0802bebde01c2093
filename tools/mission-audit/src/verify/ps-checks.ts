import { categoryOf, formatPosition, type RecordedEvent } from '@mission/event-store';
import {
  BLOB_STREAM_CATEGORY, IDEMPOTENCY_STREAM_CATEGORY, initialMissionState, initialTrackedTokensState, MISSION_STREAM_CATEGORY, missionDecider,
  PROPOSAL_BODY_STREAM_CATEGORY, TOKENS_STREAM_CATEGORY, trackedTokenDecider,
  type MissionEvent, type MissionState, type TrackedTokenEvent, type TrackedTokensState,
} from '@mission/ps-domain';
import type { Findings } from './finding.js';
import { scanForSecrets } from './secret-scan.js';
import type { ServiceChecks } from './service-checks.js';

/** Spec mission-management 2.8: members of every mission-log event. */
const LOG_MEMBERS = ['approver', 'mission_s256', 'sequence', 'occurred_at', 'actor', 'authorization'] as const;

/**
 * Person Server invariants over the recorded history (spec mission-management 2.8, 3, 4.4, 6), folding the
 * streams with the ps-domain deciders' own `evolve` — the state the service serves status, tracked tokens
 * and residuals from.
 */
export class PersonServerChecks implements ServiceChecks {
  readonly chainedCategories = new Set([MISSION_STREAM_CATEGORY, TOKENS_STREAM_CATEGORY]);
  readonly erasableCategories = new Set([BLOB_STREAM_CATEGORY, PROPOSAL_BODY_STREAM_CATEGORY]);
  /** The signature claims (apps/person-server `SIGNATURE_CLAIM_CATEGORY`). */
  readonly expiringCategories = new Set(['pssig']);
  readonly missions = new Map<string, MissionState>();
  readonly tokens = new Map<string, TrackedTokensState>();
  private readonly terminated = new Map<string, number>();
  /** Per `<stream> <jti>`: the attempt with no result yet. */
  private readonly openAttempts = new Map<string, number>();
  private readonly claims = new Map<string, { digests: Set<string>; results: number }>();

  constructor(private readonly findings: Findings) {}

  observe(event: RecordedEvent): void {
    const category = categoryOf(event.streamName);
    const s256 = event.streamName.slice(category.length + 1);
    if (category === MISSION_STREAM_CATEGORY) this.missionEvent(s256, event);
    else if (category === TOKENS_STREAM_CATEGORY) this.tokenEvent(s256, event);
    else if (category === IDEMPOTENCY_STREAM_CATEGORY) this.idempotencyEvent(event);
    if (category === MISSION_STREAM_CATEGORY || category === TOKENS_STREAM_CATEGORY) {
      for (const hit of scanForSecrets(event.data)) this.fail('ps.secret_in_log', event, `${event.type} carries ${hit} (spec 2.8: never keys, raw tokens or the blob)`);
    }
  }

  /** Every Person Server check is decided at the event itself; nothing waits for the end of the log. */
  finish(): void {
    return;
  }

  private missionEvent(s256: string, event: RecordedEvent): void {
    try {
      this.missions.set(s256, missionDecider.evolve(this.missions.get(s256) ?? initialMissionState, event as unknown as MissionEvent));
    } catch (error) {
      this.fail('projection.ps_mission', event, `the mission fold cannot apply ${event.type}: ${(error as Error).message}`);
    }
    const missing = LOG_MEMBERS.filter((member) => event.data[member] === undefined || event.data[member] === null);
    if (missing.length > 0) this.fail('ps.log_members', event, `${event.type} lacks spec 2.8 member(s) ${missing.join(', ')}`);
    if (event.data['mission_s256'] !== undefined && event.data['mission_s256'] !== s256) this.fail('ps.log_members', event, `${event.type} names mission_s256 ${String(event.data['mission_s256'])}, not its stream's`);
    if (typeof event.data['sequence'] === 'number' && BigInt(event.data['sequence']) !== event.revision + 1n) {
      this.fail('ps.log_sequence', event, `${event.type} has sequence ${event.data['sequence']} at revision ${event.revision} (must be revision + 1)`);
    }
    if (event.type === 'MissionTerminated') {
      const count = (this.terminated.get(s256) ?? 0) + 1;
      this.terminated.set(s256, count);
      if (count > 1) this.fail('ps.single_termination', event, `mission ${s256} has MissionTerminated number ${count} (spec 3: at most one)`);
    }
  }

  private tokenEvent(s256: string, event: RecordedEvent): void {
    try {
      this.tokens.set(s256, trackedTokenDecider.evolve(this.tokens.get(s256) ?? initialTrackedTokensState, event as unknown as TrackedTokenEvent));
    } catch (error) {
      this.fail('projection.ps_tracked_tokens', event, `the tracked-token fold cannot apply ${event.type}: ${(error as Error).message}`);
    }
    if (event.type === 'AuthTokenIssued' && this.terminated.has(s256)) this.fail('ps.issued_after_termination', event, `AuthTokenIssued for mission ${s256} after its MissionTerminated (spec 3 rule 3)`);
    const key = `${event.streamName} ${String(event.data['jti'])}`;
    const attempt = event.data['attempt'];
    if (event.type === 'TokenRevocationAttempted' && typeof attempt === 'number') {
      const open = this.openAttempts.get(key);
      if (open !== undefined) this.fail('ps.revocation_result', event, `revocation attempt ${attempt} for jti ${String(event.data['jti'])} while attempt ${open} has no result (spec 6)`);
      this.openAttempts.set(key, attempt);
    } else if (event.type === 'TokenRevocationConfirmed' || event.type === 'TokenRevocationFailed') {
      this.openAttempts.delete(key);
    }
  }

  /** DESIGN 3: one committed content per (caller, request_id) — one stream per key, one digest in it. */
  private idempotencyEvent(event: RecordedEvent): void {
    const claim = this.claims.get(event.streamName) ?? { digests: new Set<string>(), results: 0 };
    this.claims.set(event.streamName, claim);
    if (event.type === 'RequestClaimed' && typeof event.data['content_digest'] === 'string') {
      claim.digests.add(event.data['content_digest']);
      if (claim.digests.size > 1) this.fail('ps.idempotency', event, `request_id ${String(event.data['request_id'])} of one caller was claimed with a second content`);
    }
    if (event.type === 'RequestResultRecorded' && ++claim.results > 1) this.fail('ps.idempotency', event, 'a second result was recorded for one (caller, request_id)');
  }

  private fail(rule: string, event: RecordedEvent, message: string): void {
    this.findings.add({
      check: rule.startsWith('projection.') ? 'projection' : rule === 'ps.secret_in_log' ? 'secret' : 'invariant',
      rule, message, stream: event.streamName, revision: event.revision.toString(), position: formatPosition(event.position),
    });
  }
}

import type { MissionStatus } from '../issuer/mission-status.js';

/** Spec 3.3 cascade modes (and `immediate` for root missions, which have no parent). */
export type CascadeMode = 'immediate' | 'bounded_staleness' | 'status_required';

export interface MissionStateDecision {
  readonly allowed: boolean;
  readonly code?: 'mission_not_active' | 'mission_state_unavailable';
  readonly reason: string;
}

/**
 * Per-mission memory of verified status answers, and the rule of each mode:
 * - `immediate`: a verified active answer no older than `immediateFreshnessMs` (and within its `fresh_until`).
 * - `status_required`: a verified active answer within its `fresh_until`, per reliance decision; refuse when none can be had.
 * - `bounded_staleness`: refuse once the last confirmed-active observation is older than the bound, or on a non-active answer.
 */
export class CascadeEnforcement {
  private readonly lastAnswer = new Map<string, MissionStatus>();
  private readonly lastConfirmedActive = new Map<string, number>();

  constructor(
    private readonly fetchStatus: (missionId: string) => Promise<MissionStatus>,
    private readonly limits: { readonly immediateFreshnessMs: number; readonly stalenessBoundMs: number },
  ) {}

  async decide(missionId: string, mode: CascadeMode, nowMs: number): Promise<MissionStateDecision> {
    const cached = this.lastAnswer.get(missionId);
    const usable = cached !== undefined && cached.active && this.reusable(cached, mode, nowMs);
    const status = usable ? cached : await this.fetchStatus(missionId);
    if (status.failure === undefined) this.lastAnswer.set(missionId, status);
    if (status.active) this.lastConfirmedActive.set(missionId, status.observedAt?.getTime() ?? nowMs);
    if (status.active) return { allowed: true, reason: `confirmed active (${mode})` };
    if (status.failure === undefined) return { allowed: false, code: 'mission_not_active', reason: `the mission is ${status.state}` };
    if (mode === 'bounded_staleness') {
      const confirmed = this.lastConfirmedActive.get(missionId);
      if (confirmed !== undefined && nowMs - confirmed <= this.limits.stalenessBoundMs) {
        return { allowed: true, reason: `state unavailable (${status.failure.code}); last confirmed active ${Math.round((nowMs - confirmed) / 1000)} s ago, within the bound` };
      }
    }
    return { allowed: false, code: 'mission_state_unavailable', reason: `the mission state cannot be established (${status.failure.code}): ${status.failure.message}` };
  }

  private reusable(status: MissionStatus, mode: CascadeMode, nowMs: number): boolean {
    const freshUntil = status.freshUntil?.getTime() ?? 0;
    if (nowMs >= freshUntil) return false;
    if (mode === 'immediate') return nowMs - (status.observedAt?.getTime() ?? 0) < this.limits.immediateFreshnessMs;
    // status_required: within the declared freshness window; bounded_staleness: the answer itself is still fresh.
    return true;
  }
}

import type { Projection } from '@mission/es-kit';
import type { RecordedEvent } from '@mission/event-store';
import { MISSION_STREAM_CATEGORY, type MissionApprovedData } from '@mission/ps-domain';

/** What the approval (the first event of `psmission-<s256>`) fixes for ever: enough to order and filter a listing. */
export interface MissionIndexEntry {
  readonly missionS256: string;
  readonly agent: string;
  readonly tenant: string;
  readonly approvedAt: string;
}

/**
 * Every approved mission of this PS (ADR 0040), in memory and rebuilt from the store's `MissionApproved` events on every start. Only the
 * immutable approval facts are kept; a listing reads each listed mission's current state from its own stream,
 * so the listing never shows a status older than the write side.
 */
export class MissionIndexProjection implements Projection {
  readonly name = 'ps_mission_index';
  readonly categories = [MISSION_STREAM_CATEGORY];
  /** Only the approval: the mission logs' reads (spec 6, most of the category) are never replayed into the index. */
  readonly eventTypes = ['MissionApproved'];
  private readonly missions = new Map<string, MissionIndexEntry>();

  apply(event: RecordedEvent): void {
    if (event.type !== 'MissionApproved') return;
    const data = event.data as unknown as MissionApprovedData;
    this.missions.set(data.mission_s256, { missionS256: data.mission_s256, agent: data.agent, tenant: data.tenant, approvedAt: data.approved_at });
  }

  reset(): void {
    this.missions.clear();
  }

  /** Newest first (ties by digest), so pages are stable. */
  ordered(): MissionIndexEntry[] {
    return [...this.missions.values()].sort(compareNewestFirst);
  }
}

export function compareNewestFirst(a: Pick<MissionIndexEntry, 'approvedAt' | 'missionS256'>, b: Pick<MissionIndexEntry, 'approvedAt' | 'missionS256'>): number {
  if (a.approvedAt !== b.approvedAt) return a.approvedAt > b.approvedAt ? -1 : 1;
  return a.missionS256 < b.missionS256 ? -1 : a.missionS256 > b.missionS256 ? 1 : 0;
}

import { StoredModelProjection } from '@mission/es-kit';
import type { RecordedEvent } from '@mission/event-store';
import { MISSION_STREAM_CATEGORY, type MissionApprovedData } from '@mission/ps-domain';
import { MissionIndexStore, type IndexScope } from './mission-index.store.js';

/** What the approval (the first event of `psmission-<s256>`) fixes for ever: enough to order and filter a listing. */
export interface MissionIndexEntry {
  readonly missionS256: string;
  readonly agent: string;
  readonly tenant: string;
  readonly approvedAt: string;
}

/**
 * Every approved mission of this PS (ADR 0040), kept in a SQLite file of its own and resumed from the position stored
 * there (ADR 0087). Only the immutable approval facts are kept; a listing reads each listed mission's current state
 * from its own stream, so the listing never shows a status older than the write side.
 */
export class MissionIndexProjection extends StoredModelProjection<MissionIndexStore> {
  readonly name = 'ps_mission_index';
  readonly categories = [MISSION_STREAM_CATEGORY];
  /** Only the approval: the mission logs' reads (spec 6, most of the category) are never replayed into the index. */
  readonly eventTypes = ['MissionApproved'];

  /** `store`: the index's storage (ADR 0087); an in-memory SQLite database unless given one. */
  constructor(store: MissionIndexStore = MissionIndexStore.open(':memory:')) {
    super(store);
  }

  apply(event: RecordedEvent): void {
    const applied = { position: event.position, created: event.created };
    if (event.type !== 'MissionApproved') return this.model.skipped(applied);
    const data = event.data as unknown as MissionApprovedData;
    this.model.approved({ missionS256: data.mission_s256, agent: data.agent, tenant: data.tenant, approvedAt: data.approved_at }, applied);
  }

  /** Approved missions in the index. */
  get size(): number {
    return this.model.size;
  }

  entry(missionS256: string): MissionIndexEntry | undefined {
    return this.model.entry(missionS256);
  }

  /** At most `limit` missions of `scope` strictly after `after`, newest first (ties by digest). */
  page(scope: IndexScope, after: Pick<MissionIndexEntry, 'approvedAt' | 'missionS256'> | undefined, limit: number): MissionIndexEntry[] {
    return this.model.page(scope, after, limit);
  }
}

import type { RecordedEvent } from '@mission/event-store';
import type { Projection } from '@mission/es-kit';
import { initialMissionState, missionDecider, missionExists, type Mission, type MissionEvent, type MissionState } from '@mission/issuer-domain';

/**
 * Read model: every mission's state by id, folded with the aggregate's own `evolve` so the view can
 * never disagree with the decider about what an event means. It serves reads (status listings, trees);
 * decisions always fold the mission's stream instead.
 */
export class MissionStatusProjection implements Projection {
  readonly name = 'mission_status';
  readonly categories = ['mission'];
  private missions = new Map<string, MissionState>();

  apply(event: RecordedEvent): void {
    const id = event.streamName.slice('mission-'.length);
    const next = missionDecider.evolve(this.missions.get(id) ?? initialMissionState, event as unknown as MissionEvent);
    this.missions.set(id, next);
  }

  reset(): void {
    this.missions = new Map();
  }

  find(missionId: string): Mission | undefined {
    const state = this.missions.get(missionId);
    return state && missionExists(state) ? state : undefined;
  }

  get size(): number {
    return this.missions.size;
  }
}

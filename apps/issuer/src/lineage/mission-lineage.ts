import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { AggregateCache, type AggregateState, type CommandContext, type CommandResult, type HandleCommandOptions } from '@mission/es-kit';
import { isMissionId, missionDecider, missionExists, missionStreamName, type Mission, type MissionCommand, type MissionEvent, type MissionState } from '@mission/issuer-domain';
import { EVENT_STORE } from '@mission/platform';

/** Mission states kept folded in memory; each is caught up with its stream at every read. */
const MAX_CACHED_MISSIONS = 50_000;

/**
 * Reads mission streams for decisions that need a mission and its ancestors (DESIGN 2.4: derivation
 * under a child requires the child and every ancestor `active`, read at decision time).
 *
 * Every `load` reads the stream from the revision after the one cached, so it is exactly as fresh as a
 * full read — a parent with 10,000 attached children is not re-folded on each descendant's refresh.
 */
@Injectable()
export class MissionLineage {
  /** Mission states kept folded in memory, caught up with their streams at every read (bounded). */
  private readonly cache: AggregateCache<MissionCommand, MissionEvent, MissionState>;

  constructor(@Inject(EVENT_STORE) store: EventStore) {
    this.cache = new AggregateCache(store, missionDecider, MAX_CACHED_MISSIONS);
  }

  /** The mission's state and revision, read up to the stream's end now. */
  load(missionId: string): Promise<AggregateState<MissionState>> {
    return this.cache.load(missionStreamName(missionId));
  }

  /**
   * `handleCommand` on the mission over its cached fold: caught up (only the events after the cached revision
   * are read), decided, appended at that revision, retried on a concurrent writer, and the state after the
   * append kept, so a parent with a long history is not read from its start for each decision (ADR 0080: lifecycle
   * operations, a child's slot release).
   */
  handle(missionId: string, command: MissionCommand, context: CommandContext, options: HandleCommandOptions = {}): Promise<CommandResult<MissionState, MissionEvent>> {
    return this.cache.handle(missionStreamName(missionId), command, context, options);
  }

  async mission(missionId: string): Promise<MissionState> {
    return (await this.load(missionId)).state;
  }

  /**
   * `[parent, grandparent, …, root]` of a mission, each read now. A missing ancestor (never expected)
   * ends the chain with a NoMission entry, which every caller treats as not active.
   */
  async ancestors(mission: Mission): Promise<MissionState[]> {
    const chain: MissionState[] = [];
    let next = mission.parent?.id;
    // parent.depth bounds the walk, so a corrupted cycle cannot loop.
    for (let step = 0; next !== undefined && isMissionId(next) && step < (mission.parent?.depth ?? 0); step++) {
      const ancestor = await this.mission(next);
      chain.push(ancestor);
      next = missionExists(ancestor) ? ancestor.parent?.id : undefined;
    }
    return chain;
  }
}

/** Only existing missions; a NoMission ancestor is reported so that lineage checks refuse. */
export function existingAncestors(chain: readonly MissionState[]): Mission[] | undefined {
  return chain.every(missionExists) ? (chain as Mission[]) : undefined;
}

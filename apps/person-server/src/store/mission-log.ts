import type { EventStore } from '@mission/event-store';
import { missionDecider, missionStreamName, type MissionCommand, type MissionEvent, type MissionState } from '@mission/ps-domain';
import { GroupCommitStream, type StateSnapshots } from './group-commit-stream.js';

/**
 * The mission lifecycle and log (`psmission-<s256>`, DESIGN 1, spec 2.8, 3, 6), keyed by `mission_s256`,
 * decided by the ps-domain `missionDecider`, hash-chained, cached and group-committed (see
 * {@link GroupCommitStream}): a status read no longer replays the whole log, and concurrent reads of one
 * mission share one durable write. First committed transition still wins — every append carries the
 * expected revision. With `snapshots` (ADR 0059) a cache miss — after a restart or an eviction — starts from the
 * newest verified snapshot and reads only the events after it, so a decision never re-reads every logged read.
 */
export class MissionLog extends GroupCommitStream<MissionCommand, MissionEvent, MissionState> {
  constructor(store: EventStore, snapshots?: StateSnapshots<MissionState>) {
    super(store, missionDecider, missionStreamName, { hashChain: true, ...(snapshots !== undefined ? { snapshots } : {}) });
  }
}

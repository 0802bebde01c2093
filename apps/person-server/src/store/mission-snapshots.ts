import { timingSafeEqual } from 'node:crypto';
import { canonicalJson, eventHash, type AggregateState } from '@mission/es-kit';
import type { EventStore, JsonObject, RecordedEvent } from '@mission/event-store';
import { decodeMissionState, encodeMissionState, MISSION_SNAPSHOT_VERSION, missionStreamName, snapshotStreamName, type MissionState } from '@mission/ps-domain';
import type { AuditDigestKey } from '../abuse/audit-digest-key.js';
import type { StateSnapshots } from './group-commit-stream.js';

export const MISSION_SNAPSHOT_EVENT = 'MissionStateSnapshotted';
/** HMAC purpose of a snapshot's `mac`, apart from every other digest made under the deployment key. */
const MAC_PURPOSE = 'ps-mission-snapshot';
/** A snapshot every 500 events: a cold decision reads at most about that many events after it (ADR 0059). */
export const MISSION_SNAPSHOT_EVERY = 500;

/** What a snapshot event carries: the fold, the event it was folded up to, and a MAC over all of it. */
interface SnapshotData extends JsonObject {
  v: number;
  stream: string;
  revision: string;
  /** The chain hash (es-kit `eventHash`) of the stream's event at `revision`. */
  event_hash: string;
  state: JsonObject;
}

export interface SnapshotRejection {
  readonly s256: string;
  readonly reason: string;
}

/**
 * ADR 0059: snapshots of the folded `psmission-<s256>` on `pssnapshot-<s256>`. A snapshot is used only when
 * (1) its MAC verifies under the deployment's key (HMAC-SHA-256, the audit key with its own purpose), so one written
 * by anyone else — an operator with write access to the store — is ignored; (2) it names this mission's stream and
 * the current fold version; and (3) the stream holds, at the snapshot's revision, exactly the event the snapshot was
 * folded up to (same chain hash). The events after that revision are then read and folded as always: a snapshot only
 * saves reading what it already folded, it never stands in for the stream. A rejected snapshot is reported and the
 * stream is folded from its start.
 */
export class MissionSnapshots implements StateSnapshots<MissionState> {
  constructor(
    private readonly store: EventStore,
    private readonly key: AuditDigestKey,
    private readonly onRejected: (rejection: SnapshotRejection) => void = () => undefined,
    private readonly onWriteFailed: (s256: string, error: unknown) => void = () => undefined,
    readonly every: number = MISSION_SNAPSHOT_EVERY,
  ) {}

  async load(s256: string): Promise<AggregateState<MissionState> | undefined> {
    let newest: RecordedEvent | undefined;
    for await (const event of this.store.readStream(snapshotStreamName(s256), { direction: 'backwards', maxCount: 1 })) newest = event;
    if (newest === undefined) return undefined;
    const rejected = (reason: string): undefined => {
      this.onRejected({ s256, reason });
      return undefined;
    };
    const data = newest.data as Partial<SnapshotData> & { mac?: unknown };
    if (newest.type !== MISSION_SNAPSHOT_EVENT || typeof data.mac !== 'string') return rejected('not a snapshot');
    const { mac, ...signed } = data;
    if (!this.macMatches(signed as SnapshotData, mac)) return rejected('MAC does not verify');
    if (signed.v !== MISSION_SNAPSHOT_VERSION) return undefined; // an older fold: folded again, not an attack
    const stream = missionStreamName(s256);
    if (signed.stream !== stream || typeof signed.revision !== 'string' || !/^(0|[1-9][0-9]*)$/.test(signed.revision)) return rejected('names another stream or no revision');
    const revision = BigInt(signed.revision);
    let at: RecordedEvent | undefined;
    for await (const event of this.store.readStream(stream, { fromRevision: revision, maxCount: 1 })) at = event;
    if (at === undefined || at.revision !== revision || eventHash(at) !== signed.event_hash) return rejected('not an event of the stream at its revision');
    try {
      return { state: decodeMissionState(signed.state), revision, lastEvent: at };
    } catch (error) {
      return rejected((error as Error).message);
    }
  }

  async save(s256: string, current: AggregateState<MissionState>): Promise<void> {
    if (current.revision === 'no_stream' || current.lastEvent === undefined) return;
    const data: SnapshotData = {
      v: MISSION_SNAPSHOT_VERSION,
      stream: missionStreamName(s256),
      revision: current.revision.toString(),
      event_hash: eventHash(current.lastEvent),
      state: encodeMissionState(current.state) as JsonObject,
    };
    try {
      await this.store.appendToStream(snapshotStreamName(s256), [{ type: MISSION_SNAPSHOT_EVENT, data: { ...data, mac: this.mac(data) } }], { expectedRevision: 'any' });
    } catch (error) {
      this.onWriteFailed(s256, error);
      throw error;
    }
  }

  private mac(data: SnapshotData): string {
    return this.key.digest(MAC_PURPOSE, canonicalJson(data));
  }

  private macMatches(data: SnapshotData, mac: string): boolean {
    let expected: string;
    try {
      expected = this.mac(data);
    } catch {
      return false; // not plain JSON
    }
    const [a, b] = [Buffer.from(expected), Buffer.from(mac)];
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

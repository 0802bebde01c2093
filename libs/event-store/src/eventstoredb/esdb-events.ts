import type { AppendToStreamOptions, EventData as ClientEventData, Filter, RecordedEvent as ClientRecordedEvent } from '@eventstore/db-client';
import type { AllFilter, ExpectedRevision, JsonObject, RecordedEvent } from '../port/event-store.js';
import { EventStoreError } from '../port/errors.js';
import { comparePositions, type Position } from '../port/position.js';
import { categoryOf } from '../port/stream-name.js';
import { checkAllFilter, matchesNothing } from '../port/all-filter.js';
import type { SerializedEvent } from '../port/validate-events.js';
import { eventTypeFilter, streamNameFilter } from './esdb-client.js';

const utf8 = new TextEncoder();

/**
 * Our events as the client sends them. JSON was already serialized (and validated) exactly once;
 * the metadata goes as those very bytes (the client passes a plain Uint8Array through untouched),
 * while the data is re-parsed from its text into a private copy for the client to stringify — so a
 * caller mutating its objects after the call cannot change what is written.
 */
export function toClientEvents(events: readonly SerializedEvent[]): ClientEventData[] {
  return events.map((event) => ({
    id: event.id,
    contentType: 'application/json' as const,
    type: event.type,
    data: JSON.parse(event.data) as JsonObject,
    metadata: utf8.encode(event.metadata),
  }));
}

/**
 * The port and the client spell expected revisions the same way, but the client reads them from an
 * option named `expectedRevision` (the newer @kurrent client calls it `streamState` and silently
 * ignores the old name): keep this the only place that builds the option, typed by the client's
 * own options so that a renamed field fails to compile (ADR 0002).
 */
export function expectedRevisionOption(expected: ExpectedRevision): Required<Pick<AppendToStreamOptions, 'expectedRevision'>> {
  return { expectedRevision: expected };
}

export function toRecordedEvent(event: ClientRecordedEvent): RecordedEvent {
  if (!event.isJson || !isJsonObject(event.data)) {
    throw new EventStoreError(`event ${event.id} (${event.type}) in ${event.streamId} is not a JSON object; this store reads JSON events only`);
  }
  const metadata = event.metadata === undefined ? {} : event.metadata;
  if (!isJsonObject(metadata)) {
    throw new EventStoreError(`event ${event.id} (${event.type}) in ${event.streamId} has metadata that is not a JSON object`);
  }
  if (!event.position) {
    throw new EventStoreError(`event ${event.id} in ${event.streamId} came without a log position; EventStoreDB ≥ 22.6 is required`);
  }
  return {
    streamName: event.streamId,
    revision: event.revision,
    position: { commit: event.position.commit, prepare: event.position.prepare },
    id: event.id,
    type: event.type,
    data: event.data,
    metadata,
    created: event.created,
  };
}

function isJsonObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Which `$all` events the port shows. EventStoreDB's own events (system streams `$…`, metadata
 * streams `$$…`, `$`-typed events such as links) never; our checkpoint streams never either — the
 * embedded store keeps checkpoints outside the log, and a projection that saw its own checkpoint
 * writes would checkpoint again forever.
 */
export class AllEventsView {
  readonly categories: readonly string[] | undefined;
  readonly types: readonly string[] | undefined;

  constructor(
    filter: AllFilter | undefined,
    private readonly checkpointCategory: string,
  ) {
    ({ categories: this.categories, types: this.types } = checkAllFilter(filter));
  }

  /** Nothing can ever match: an explicitly empty category or type list. */
  get matchesNothing(): boolean {
    return matchesNothing(this);
  }

  shows(event: { streamId: string; type: string }): boolean {
    if (event.streamId.startsWith('$') || event.type.startsWith('$')) return false;
    const category = categoryOf(event.streamId);
    if (category === this.checkpointCategory) return false;
    if (this.types !== undefined && !this.types.includes(event.type)) return false;
    return this.categories === undefined || this.categories.includes(category);
  }

  /**
   * The same rule for the server, so that it does not ship what we would drop. The server filters on
   * stream names or on event types, not both: types, when given, are the narrower one (a few event
   * types out of a busy category, ADR 0055), matched exactly by an anchored regex (types are
   * `[A-Za-z0-9]` only, so nothing needs escaping); `shows` then applies the categories. Category
   * prefixes go without the `-` so that a dash-less stream name (its own category) matches as in the
   * embedded store; `shows` then cuts the prefix matches down to exact categories.
   */
  serverFilter(): Filter {
    if (this.types) return eventTypeFilter({ regex: `^(?:${this.types.join('|')})$` });
    if (this.categories) return streamNameFilter({ prefixes: [...this.categories] });
    return streamNameFilter({ regex: `^(?!\\$|${this.checkpointCategory}(?:-|$))` });
  }
}

export function isAfter(position: Position, after: Position | undefined): boolean {
  return after === undefined || comparePositions(position, after) > 0;
}

export function positionOf(event: ClientRecordedEvent): Position {
  if (!event.position) throw new EventStoreError(`event ${event.id} in ${event.streamId} came without a log position; EventStoreDB ≥ 22.6 is required`);
  return event.position;
}

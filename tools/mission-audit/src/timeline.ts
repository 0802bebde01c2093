import { categoryOf, formatPosition, type JsonObject, type RecordedEvent } from '@mission/event-store';
import { MISSION_STREAM_CATEGORY, TOKENS_STREAM_CATEGORY } from '@mission/ps-domain';
import type { ServiceName } from './cli-args.js';
import type { AuditSource } from './source/audit-source.js';

export interface TimelineEntry {
  readonly position: string;
  readonly time: string;
  readonly mission: string;
  readonly event: string;
  readonly actor?: { readonly id: string; readonly role: string };
  readonly reason?: string;
  readonly state?: string;
}

export interface Timeline {
  readonly mission: string;
  readonly entries: readonly TimelineEntry[];
  /** Issuer: the delegation tree, parent → children in creation order. */
  readonly tree?: Readonly<Record<string, readonly string[]>>;
}

/**
 * The ordered history of one mission. On the issuer it follows the delegation tree down: a child joins
 * the timeline when its parent's stream attaches it (or its creation names a followed parent), so one
 * pass over the global order suffices. On the Person Server it is the mission log and its tracked tokens.
 */
export async function buildTimeline(source: AuditSource, service: ServiceName, mission: string): Promise<Timeline> {
  const entries: TimelineEntry[] = [];
  if (service === 'person-server') {
    const streams = new Set([`${MISSION_STREAM_CATEGORY}-${mission}`, `${TOKENS_STREAM_CATEGORY}-${mission}`]);
    for await (const event of source.readAll()) if (streams.has(event.streamName)) entries.push(entryOf(event, mission));
    return { mission, entries };
  }
  const followed = new Set([mission]);
  const tree: Record<string, string[]> = {};
  const follow = (parent: string, child: string): void => {
    if (followed.has(child)) return;
    followed.add(child);
    (tree[parent] ??= []).push(child);
  };
  for await (const event of source.readAll()) {
    if (categoryOf(event.streamName) !== 'mission') continue;
    const id = event.streamName.slice('mission-'.length);
    const parentId = (event.data['parent'] as JsonObject | undefined)?.['id'];
    if (event.type === 'MissionCreated' && typeof parentId === 'string' && followed.has(parentId)) follow(parentId, id);
    if (!followed.has(id)) continue;
    if (event.type === 'ChildMissionAttached' && typeof event.data['child_mission_id'] === 'string') follow(id, event.data['child_mission_id']);
    entries.push(entryOf(event, id));
  }
  return { mission, entries, tree };
}

function entryOf(event: RecordedEvent, mission: string): TimelineEntry {
  const actor = (event.data['actor'] ?? event.metadata['actor']) as { id?: unknown; role?: unknown } | undefined;
  const occurred = event.data['occurred_at'] ?? event.metadata['occurred_at'];
  const reason = event.data['reason'];
  const state = event.data['state'];
  return {
    position: formatPosition(event.position),
    time: typeof occurred === 'string' ? occurred : event.created.toISOString(),
    mission,
    event: event.type,
    ...(actor && typeof actor.id === 'string' && typeof actor.role === 'string' ? { actor: { id: actor.id, role: actor.role } } : {}),
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(typeof state === 'string' ? { state } : {}),
  };
}

export function printTimeline(timeline: Timeline, write: (line: string) => void): void {
  if (timeline.entries.length === 0) {
    write(`no events for mission ${timeline.mission}`);
    return;
  }
  if (timeline.tree) {
    write('tree:');
    const walk = (id: string, depth: number): void => {
      write(`${'  '.repeat(depth + 1)}${id}`);
      for (const child of timeline.tree?.[id] ?? []) walk(child, depth + 1);
    };
    walk(timeline.mission, 0);
  }
  write('timeline:');
  for (const entry of timeline.entries) {
    const actor = entry.actor ? ` by ${entry.actor.id} (${entry.actor.role})` : '';
    const state = entry.state ? ` → ${entry.state}` : '';
    const reason = entry.reason ? ` reason: ${entry.reason}` : '';
    write(`  ${entry.time}  ${entry.mission}  ${entry.event}${state}${actor}${reason}`);
  }
}

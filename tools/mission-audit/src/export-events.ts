import { formatPosition, type Position } from '@mission/event-store';
import type { AuditSource } from './source/audit-source.js';

/**
 * Every event as one JSON line with its global position (`<commit>/<prepare>`), oldest first: pass the last
 * position printed as `--since` to continue where a previous export stopped.
 */
export async function exportEvents(source: AuditSource, since: Position | undefined, write: (line: string) => Promise<void> | void): Promise<number> {
  let count = 0;
  for await (const event of source.readAll(since)) {
    await write(JSON.stringify({
      position: formatPosition(event.position),
      stream: event.streamName,
      revision: event.revision.toString(),
      id: event.id,
      type: event.type,
      created: event.created.toISOString(),
      data: event.data,
      metadata: event.metadata,
    }));
    count += 1;
  }
  return count;
}

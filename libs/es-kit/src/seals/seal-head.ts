import { parsePosition, type EventStore, type Position } from '@mission/event-store';

/** The newest seal: where the writer resumes. */
export interface SealHead {
  readonly seq: number;
  readonly jws: string;
  readonly through: Position;
  readonly revision: bigint;
}

export async function readLastSeal(store: EventStore, streamName: string): Promise<SealHead | undefined> {
  for await (const event of store.readStream(streamName, { direction: 'backwards', maxCount: 1 })) {
    const jws = event.data['jws'];
    if (typeof jws !== 'string') throw new Error(`${streamName} revision ${event.revision} is not a seal`);
    const payload = JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as { seq: number; through: string };
    return { seq: payload.seq, jws, through: parsePosition(payload.through), revision: event.revision };
  }
  return undefined;
}

/**
 * A position in the global (`$all`) order.
 *
 * EventStoreDB identifies a position by a (commit, prepare) pair of 64-bit log offsets; the pair is
 * kept whole so that resuming a subscription never lands between two events of one transaction.
 * The embedded store uses its commit sequence for both. Both halves are `bigint`: log offsets pass
 * 2^53 on long-lived clusters and must never round-trip through `number`.
 */
export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export const START: Position = Object.freeze({ commit: 0n, prepare: 0n });

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** Text form used for stored checkpoints and logs: `<commit>/<prepare>` in decimal. */
export function formatPosition(position: Position): string {
  return `${position.commit}/${position.prepare}`;
}

const POSITION_TEXT = /^(0|[1-9][0-9]{0,19})\/(0|[1-9][0-9]{0,19})$/;

export function parsePosition(text: string): Position {
  const match = POSITION_TEXT.exec(text);
  if (!match) throw new TypeError(`not a stored position: ${JSON.stringify(text)}`);
  return { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) };
}

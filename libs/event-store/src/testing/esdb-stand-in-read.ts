/**
 * TEST DOUBLE ONLY (see esdb-grpc-stand-in.ts): the stand-in's `Streams.Read` — stream reads,
 * `$all` reads and catch-up subscriptions to `$all`, answered the way EventStoreDB answers them.
 * Never used at run time.
 */
import { randomUUID } from 'node:crypto';
import { status, type ServerWritableStream } from '@grpc/grpc-js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import type * as streams from '@eventstore/db-client/generated/streams_pb.js';
import type { Position } from '../port/position.js';
import { matchesFilter, type AllFilterSpec, type StandInLog } from './esdb-stand-in-log.js';
import { grpcError, readEvent, readPosition, streamIdentifier, streamNameOf, toServiceError } from './esdb-stand-in-messages.js';

type ReadCall = ServerWritableStream<streams.ReadReq, streams.ReadResp>;

export type ReadRequestRecord =
  | { readonly method: 'read'; readonly target: 'stream'; readonly streamName: string; readonly backwards: boolean }
  | {
      readonly method: 'read';
      readonly target: 'all';
      readonly subscription: boolean;
      readonly backwards: boolean;
      readonly from: Position | 'start' | 'end';
      readonly filter?: { readonly on: 'stream' | 'type'; readonly prefixes: readonly string[]; readonly regex?: string };
    };

export interface ReadContext {
  readonly log: StandInLog;
  readonly record: (request: ReadRequestRecord) => void;
  /** Open subscription calls, so that the stand-in can drop them. */
  readonly subscriptions: Set<ReadCall>;
  readonly isClosing: () => boolean;
  /** Re-send the event at a subscription's start position (see EventStoreDbStandInOptions). */
  readonly inclusiveStart: boolean;
}

const SUBSCRIPTION_PAGE = 500;
const LIVE_POLL_MS = 100;

export function handleRead(context: ReadContext, call: ReadCall): void {
  serveRead(context, call).catch((error: unknown) => {
    if (!isFinished(call)) call.emit('error', toServiceError(error));
  });
}

async function serveRead(context: ReadContext, call: ReadCall): Promise<void> {
  const options = call.request.getOptions();
  if (!options) throw grpcError(status.INVALID_ARGUMENT, 'read options missing');
  const backwards = options.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.BACKWARDS;
  const count = countOf(options);
  const stream = options.getStream();
  if (stream) {
    if (options.hasSubscription()) throw grpcError(status.UNIMPLEMENTED, 'stand-in: stream subscriptions are not implemented');
    const streamName = streamNameOf(stream.getStreamIdentifier());
    context.record({ method: 'read', target: 'stream', streamName, backwards });
    await readStream(context, call, streamName, stream, backwards, count);
    return;
  }
  const all = options.getAll();
  if (!all) throw grpcError(status.INVALID_ARGUMENT, 'read of neither a stream nor $all');
  const from = all.hasPosition() ? readPosition(all.getPosition())! : all.hasEnd() ? 'end' : 'start';
  const filter = filterOf(options);
  context.record({
    method: 'read',
    target: 'all',
    subscription: options.hasSubscription(),
    backwards,
    from,
    ...(filter && { filter: { on: filter.on, prefixes: filter.prefixes, ...(filter.regex && { regex: filter.regex.source }) } }),
  });
  if (options.hasSubscription()) {
    await subscribeToAll(context, call, from, filter);
    return;
  }
  const events = backwards
    ? await context.log.readAllBackwards(from === 'end' ? undefined : from === 'start' ? { commit: 0n, prepare: 0n } : from, count, filter)
    : from === 'end'
      ? []
      : await context.log.readAllForwards(from === 'start' ? undefined : from, count, filter);
  for (const event of events) await send(call, readEvent(event));
  call.end();
}

async function readStream(
  context: ReadContext,
  call: ReadCall,
  streamName: string,
  options: streams.ReadReq.Options.StreamOptions,
  backwards: boolean,
  count: number,
): Promise<void> {
  const from = options.hasRevision() ? BigInt(options.getRevision()) : options.hasEnd() ? 'end' : 'start';
  const result = await context.log.readStream(streamName, backwards, from, count);
  if (!result.found) {
    const notFound = new streamsPb.ReadResp.StreamNotFound().setStreamIdentifier(streamIdentifier(streamName));
    await send(call, new streamsPb.ReadResp().setStreamNotFound(notFound));
  } else {
    for (const event of result.events) await send(call, readEvent(event));
  }
  call.end();
}

/**
 * Catch-up subscription: confirmation, history strictly after the start position, `caught_up`, then
 * live events as they are appended (woken by the log, with a poll as a backstop for writes that
 * bypass the stand-in). Filtered-out stretches produce `checkpoint` messages, as the server's do.
 */
async function subscribeToAll(context: ReadContext, call: ReadCall, from: Position | 'start' | 'end', filter: AllFilterSpec | undefined): Promise<void> {
  context.subscriptions.add(call);
  let dirty = false;
  let wake: (() => void) | undefined;
  const stopListening = context.log.onChange(() => {
    dirty = true;
    wake?.();
  });
  const onEnd = () => wake?.();
  call.on('cancelled', onEnd);
  call.on('finish', onEnd);
  try {
    const confirmation = new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID());
    await send(call, new streamsPb.ReadResp().setConfirmation(confirmation));
    let cursor = from === 'start' ? undefined : from === 'end' ? await context.log.headPosition() : from;
    if (context.inclusiveStart && cursor) cursor = { commit: cursor.commit - 1n, prepare: cursor.prepare - 1n };
    let caughtUp = false;
    while (!isFinished(call) && !context.isClosing()) {
      dirty = false;
      const page = await context.log.eventsAfter(cursor, SUBSCRIPTION_PAGE);
      let skipped = false;
      for (const event of page) {
        if (isFinished(call)) return;
        cursor = event.position;
        if (matchesFilter(event, filter)) await send(call, readEvent(event));
        else skipped = true;
      }
      if (skipped && cursor && !isFinished(call)) {
        const checkpoint = new streamsPb.ReadResp.Checkpoint()
          .setCommitPosition(cursor.commit.toString())
          .setPreparePosition(cursor.prepare.toString());
        await send(call, new streamsPb.ReadResp().setCheckpoint(checkpoint));
      }
      if (page.length > 0) continue;
      if (!caughtUp && !isFinished(call)) {
        caughtUp = true;
        await send(call, new streamsPb.ReadResp().setCaughtUp(new streamsPb.ReadResp.CaughtUp()));
      }
      if (!dirty) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, LIVE_POLL_MS);
          function done() {
            clearTimeout(timer);
            wake = undefined;
            resolve();
          }
          wake = done;
        });
      }
    }
  } finally {
    stopListening();
    call.off('cancelled', onEnd);
    call.off('finish', onEnd);
    context.subscriptions.delete(call);
  }
}

function countOf(options: streams.ReadReq.Options): number {
  if (!options.hasCount()) return Number.MAX_SAFE_INTEGER;
  const count = BigInt(options.getCount());
  return count > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(count);
}

function filterOf(options: streams.ReadReq.Options): AllFilterSpec | undefined {
  const filter = options.getFilter();
  if (!filter) return undefined;
  const on = filter.hasStreamIdentifier() ? 'stream' : 'type';
  const expression = filter.getStreamIdentifier() ?? filter.getEventType();
  if (!expression) throw grpcError(status.INVALID_ARGUMENT, 'filter without an expression');
  const regex = expression.getRegex();
  return { on, prefixes: expression.getPrefixList(), ...(regex && { regex: new RegExp(regex) }) };
}

function isFinished(call: ReadCall): boolean {
  return call.cancelled || call.writableEnded || call.destroyed;
}

/** Writes with back-pressure, so a slow subscriber holds the loop instead of buffering `$all`. */
async function send(call: ReadCall, message: streams.ReadResp): Promise<void> {
  if (isFinished(call) || call.write(message)) return;
  await new Promise<void>((resolve) => {
    const events = ['drain', 'close', 'finish', 'cancelled', 'error'] as const;
    const done = () => {
      for (const event of events) call.off(event, done);
      resolve();
    };
    for (const event of events) call.once(event, done);
  });
}

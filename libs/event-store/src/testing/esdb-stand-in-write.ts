/**
 * TEST DOUBLE ONLY (see esdb-grpc-stand-in.ts): the stand-in's write calls — unary `Append`
 * (client stream of options then proposed messages), `BatchAppend` (bidirectional, correlated
 * batches) and `Tombstone` — with EventStoreDB's result and error shapes. Never used at run time.
 */
import { status, type sendUnaryData, type ServerDuplexStream, type ServerReadableStream, type ServerUnaryCall } from '@grpc/grpc-js';
import anyPb from 'google-protobuf/google/protobuf/any_pb.js';
import emptyPb from 'google-protobuf/google/protobuf/empty_pb.js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import statusPb from '@eventstore/db-client/generated/status_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import type * as streams from '@eventstore/db-client/generated/streams_pb.js';
import type { EventData, ExpectedRevision } from '../port/event-store.js';
import { StreamDeletedError, WrongExpectedRevisionError } from '../port/errors.js';
import type { StandInLog } from './esdb-stand-in-log.js';
import {
  allStreamPosition, expectedRevisionOf, grpcError, streamIdentifier, streamNameOf, toEventData, toServiceError, uuidText,
} from './esdb-stand-in-messages.js';

export interface WriteRequestRecord {
  readonly method: 'append' | 'batchAppend' | 'tombstone' | 'delete';
  readonly streamName: string;
  /** Exactly what arrived in the options message's expected-revision oneof. */
  readonly expectedRevision: ExpectedRevision;
  readonly eventCount: number;
}

export interface WriteContext {
  readonly log: StandInLog;
  readonly record: (request: WriteRequestRecord) => void;
}

export function handleAppend(
  context: WriteContext,
  call: ServerReadableStream<streams.AppendReq, streams.AppendResp>,
  callback: sendUnaryData<streams.AppendResp>,
): void {
  let options: streams.AppendReq.Options | undefined;
  const events: EventData[] = [];
  let failure: unknown;
  call.on('data', (request: streams.AppendReq) => {
    try {
      if (request.hasOptions()) options = request.getOptions();
      const proposed = request.getProposedMessage();
      if (proposed) events.push(toEventData(proposed));
    } catch (error) {
      failure ??= error;
    }
  });
  call.on('error', () => undefined);
  call.on('end', () => {
    appendOnce(context, options, events, failure).then(
      (response) => callback(null, response),
      (error: unknown) => callback(toServiceError(error)),
    );
  });
}

async function appendOnce(
  context: WriteContext,
  options: streams.AppendReq.Options | undefined,
  events: EventData[],
  failure: unknown,
): Promise<streams.AppendResp> {
  if (failure) throw failure;
  if (!options) throw grpcError(status.INVALID_ARGUMENT, 'append without options');
  const streamName = streamNameOf(options.getStreamIdentifier());
  const expected = expectedRevisionOf(revisionOptions(options));
  context.record({ method: 'append', streamName, expectedRevision: expected, eventCount: events.length });
  try {
    const result = await context.log.append(streamName, events, expected);
    const position = new streamsPb.AppendResp.Position()
      .setCommitPosition(result.position.commit.toString())
      .setPreparePosition(result.position.prepare.toString());
    const success = new streamsPb.AppendResp.Success().setCurrentRevision(result.revision.toString()).setPosition(position);
    return new streamsPb.AppendResp().setSuccess(success);
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    // A unary append reports a concurrency conflict in the response body, not as a gRPC error.
    const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
    if (error.actual === 'no_stream') wrong.setCurrentNoStream(new sharedPb.Empty());
    else wrong.setCurrentRevision(error.actual.toString());
    if (error.expected === 'any') wrong.setExpectedAny(new sharedPb.Empty());
    else if (error.expected === 'no_stream') wrong.setExpectedNoStream(new sharedPb.Empty());
    else if (error.expected === 'stream_exists') wrong.setExpectedStreamExists(new sharedPb.Empty());
    else wrong.setExpectedRevision(error.expected.toString());
    return new streamsPb.AppendResp().setWrongExpectedVersion(wrong);
  }
}

interface PendingBatch {
  options?: streams.BatchAppendReq.Options;
  events: EventData[];
  failure?: unknown;
}

export function handleBatchAppend(context: WriteContext, call: ServerDuplexStream<streams.BatchAppendReq, streams.BatchAppendResp>): void {
  const pending = new Map<string, PendingBatch>();
  const inFlight = new Set<Promise<void>>();
  call.on('data', (request: streams.BatchAppendReq) => {
    const correlation = request.getCorrelationId();
    const key = uuidText(correlation) ?? '';
    const batch = pending.get(key) ?? { events: [] };
    pending.set(key, batch);
    try {
      if (request.hasOptions()) batch.options = request.getOptions();
      for (const message of request.getProposedMessagesList()) batch.events.push(toEventData(message));
    } catch (error) {
      batch.failure ??= error;
    }
    if (!request.getIsFinal()) return;
    pending.delete(key);
    const work = completeBatch(context, batch).then((response) => {
      if (correlation) response.setCorrelationId(correlation);
      if (!call.writableEnded && !call.destroyed) call.write(response);
    });
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  });
  call.on('error', () => undefined);
  call.on('end', () => {
    void Promise.allSettled([...inFlight]).then(() => call.end());
  });
}

async function completeBatch(context: WriteContext, batch: PendingBatch): Promise<streams.BatchAppendResp> {
  const response = new streamsPb.BatchAppendResp();
  const options = batch.options;
  if (!options) return response.setError(rpcStatus(status.INVALID_ARGUMENT, 'batch without options'));
  const streamName = streamNameOf(options.getStreamIdentifier());
  response.setStreamIdentifier(streamIdentifier(streamName));
  if (batch.failure) return response.setError(rpcStatus(status.INVALID_ARGUMENT, String(batch.failure)));
  let expected: ExpectedRevision;
  try {
    expected = expectedRevisionOf({
      hasNoStream: () => options.hasNoStream(),
      hasAny: () => options.hasAny(),
      hasStreamExists: () => options.hasStreamExists(),
      revision: () => (options.hasStreamPosition() ? options.getStreamPosition() : undefined),
    });
  } catch (error) {
    return response.setError(rpcStatus(status.INVALID_ARGUMENT, String(error)));
  }
  context.record({ method: 'batchAppend', streamName, expectedRevision: expected, eventCount: batch.events.length });
  try {
    const result = await context.log.append(streamName, batch.events, expected);
    const success = new streamsPb.BatchAppendResp.Success()
      .setCurrentRevision(result.revision.toString())
      .setPosition(allStreamPosition(result.position));
    return response.setSuccess(success);
  } catch (error) {
    return response.setError(batchError(error, streamName));
  }
}

/** Append and tombstone options carry the expected revision in the same oneof shape. */
function revisionOptions(options: { hasNoStream(): boolean; hasAny(): boolean; hasStreamExists(): boolean; hasRevision(): boolean; getRevision(): string }) {
  return {
    hasNoStream: () => options.hasNoStream(),
    hasAny: () => options.hasAny(),
    hasStreamExists: () => options.hasStreamExists(),
    revision: () => (options.hasRevision() ? options.getRevision() : undefined),
  };
}

/** BatchAppend reports every failure as a google.rpc.Status whose details name the server's error type. */
function batchError(error: unknown, streamName: string): InstanceType<typeof statusPb.Status> {
  if (error instanceof WrongExpectedRevisionError) {
    const details = new sharedPb.WrongExpectedVersion();
    if (error.actual === 'no_stream') details.setCurrentNoStream(new emptyPb.Empty());
    else details.setCurrentStreamRevision(error.actual.toString());
    if (error.expected === 'any') details.setExpectedAny(new emptyPb.Empty());
    else if (error.expected === 'no_stream') details.setExpectedNoStream(new emptyPb.Empty());
    else if (error.expected === 'stream_exists') details.setExpectedStreamExists(new emptyPb.Empty());
    else details.setExpectedStreamPosition(error.expected.toString());
    return rpcStatus(status.FAILED_PRECONDITION, error.message, details.serializeBinary(), 'event_store.client.WrongExpectedVersion');
  }
  if (error instanceof StreamDeletedError) {
    const details = new sharedPb.StreamDeleted().setStreamIdentifier(streamIdentifier(streamName));
    return rpcStatus(status.FAILED_PRECONDITION, error.message, details.serializeBinary(), 'event_store.client.StreamDeleted');
  }
  return rpcStatus(status.UNKNOWN, error instanceof Error ? error.message : String(error));
}

function rpcStatus(
  code: status,
  message: string,
  details: Uint8Array = new sharedPb.Unknown().serializeBinary(),
  typeName = 'event_store.client.Unknown',
): InstanceType<typeof statusPb.Status> {
  const any = new anyPb.Any();
  any.pack(details, typeName);
  return new statusPb.Status().setCode(code as number).setMessage(message).setDetails(any);
}

/**
 * Soft delete, as the adapter's `expireStreams` uses it: the stand-in removes the stream from the backing
 * store (`expireStreams` there), so the name may be written again, as after a real server's soft delete.
 */
export function handleDelete(
  context: WriteContext,
  call: ServerUnaryCall<streams.DeleteReq, streams.DeleteResp>,
  callback: sendUnaryData<streams.DeleteResp>,
): void {
  const run = async (): Promise<streams.DeleteResp> => {
    const options = call.request.getOptions();
    if (!options) throw grpcError(status.INVALID_ARGUMENT, 'delete without options');
    const streamName = streamNameOf(options.getStreamIdentifier());
    const expected = expectedRevisionOf(revisionOptions(options));
    context.record({ method: 'delete', streamName, expectedRevision: expected, eventCount: 0 });
    await context.log.expire(streamName);
    return new streamsPb.DeleteResp().setNoPosition(new sharedPb.Empty());
  };
  run().then(
    (response) => callback(null, response),
    (error: unknown) => callback(toServiceError(error)),
  );
}

export function handleTombstone(
  context: WriteContext,
  call: ServerUnaryCall<streams.TombstoneReq, streams.TombstoneResp>,
  callback: sendUnaryData<streams.TombstoneResp>,
): void {
  const run = async (): Promise<streams.TombstoneResp> => {
    const options = call.request.getOptions();
    if (!options) throw grpcError(status.INVALID_ARGUMENT, 'tombstone without options');
    const streamName = streamNameOf(options.getStreamIdentifier());
    const expected = expectedRevisionOf(revisionOptions(options));
    context.record({ method: 'tombstone', streamName, expectedRevision: expected, eventCount: 0 });
    await context.log.tombstone(streamName, expected);
    return new streamsPb.TombstoneResp().setNoPosition(new sharedPb.Empty());
  };
  run().then(
    (response) => callback(null, response),
    (error: unknown) => callback(toServiceError(error)),
  );
}

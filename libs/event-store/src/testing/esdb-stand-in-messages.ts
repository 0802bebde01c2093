/**
 * TEST DOUBLE ONLY (see esdb-grpc-stand-in.ts): conversions between the EventStoreDB client's own
 * protoc-generated messages and the stand-in's storage view, mirroring what the server sends
 * (error trailers, `created` in .NET ticks, positions as decimal strings). Never used at run time.
 */
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import type * as shared from '@eventstore/db-client/generated/shared_pb.js';
import type * as streams from '@eventstore/db-client/generated/streams_pb.js';
import type { EventData, ExpectedRevision, JsonObject } from '../port/event-store.js';
import { InvalidEventError, InvalidStreamNameError, StreamDeletedError, WrongExpectedRevisionError } from '../port/errors.js';
import type { Position } from '../port/position.js';
import type { WireEvent } from './esdb-stand-in-log.js';

const TICKS_PER_MS = 10_000n;

export function streamNameOf(identifier: shared.StreamIdentifier | undefined): string {
  if (!identifier) throw grpcError(status.INVALID_ARGUMENT, 'stream identifier missing');
  return Buffer.from(identifier.getStreamName_asU8()).toString('utf8');
}

export function streamIdentifier(streamName: string): shared.StreamIdentifier {
  return new sharedPb.StreamIdentifier().setStreamName(Buffer.from(streamName, 'utf8'));
}

export function uuidText(uuid: shared.UUID | undefined): string | undefined {
  if (!uuid) return undefined;
  if (uuid.hasString()) return uuid.getString();
  const structured = uuid.getStructured();
  if (!structured) return undefined;
  const bytes = Buffer.alloc(16);
  bytes.writeBigInt64BE(BigInt(structured.getMostSignificantBits()), 0);
  bytes.writeBigInt64BE(BigInt(structured.getLeastSignificantBits()), 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

interface ProposedMessage {
  getId(): shared.UUID | undefined;
  getMetadataMap(): { get(key: string): string | undefined };
  getData_asU8(): Uint8Array;
  getCustomMetadata_asU8(): Uint8Array;
}

/** Same rule as the server's JSON content type: the stand-in stores JSON objects only. */
export function toEventData(message: ProposedMessage): EventData {
  const metadata = message.getMetadataMap();
  const type = metadata.get('type');
  if (!type) throw grpcError(status.INVALID_ARGUMENT, 'proposed message without a type');
  if (metadata.get('content-type') !== 'application/json') {
    throw grpcError(status.INVALID_ARGUMENT, `stand-in stores JSON events only, got ${metadata.get('content-type')}`);
  }
  const custom = message.getCustomMetadata_asU8();
  return {
    id: uuidText(message.getId()),
    type,
    data: parseJsonObject(message.getData_asU8(), 'data'),
    metadata: custom.length === 0 ? {} : parseJsonObject(custom, 'custom metadata'),
  };
}

function parseJsonObject(bytes: Uint8Array, what: string): JsonObject {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as JsonObject;
  } catch {
    throw grpcError(status.INVALID_ARGUMENT, `${what} is not JSON`);
  }
}

/** Decodes the oneof exactly; an unset oneof is refused so that a client dropping the option is caught. */
export function expectedRevisionOf(options: {
  hasNoStream(): boolean;
  hasAny(): boolean;
  hasStreamExists(): boolean;
  revision(): string | undefined;
}): ExpectedRevision {
  if (options.hasNoStream()) return 'no_stream';
  if (options.hasAny()) return 'any';
  if (options.hasStreamExists()) return 'stream_exists';
  const revision = options.revision();
  if (revision !== undefined) return BigInt(revision);
  throw grpcError(status.INVALID_ARGUMENT, 'expected stream revision not set');
}

export function readEvent(event: WireEvent): streams.ReadResp {
  const recorded = new streamsPb.ReadResp.ReadEvent.RecordedEvent()
    .setId(new sharedPb.UUID().setString(event.id))
    .setStreamIdentifier(streamIdentifier(event.streamName))
    .setStreamRevision(event.revision.toString())
    .setCommitPosition(event.position.commit.toString())
    .setPreparePosition(event.position.prepare.toString())
    .setData(Buffer.from(event.data, 'utf8'))
    .setCustomMetadata(Buffer.from(event.metadata, 'utf8'));
  recorded.getMetadataMap()
    .set('type', event.type)
    .set('content-type', 'application/json')
    .set('created', (BigInt(event.created.getTime()) * TICKS_PER_MS).toString());
  const read = new streamsPb.ReadResp.ReadEvent().setEvent(recorded).setCommitPosition(event.position.commit.toString());
  return new streamsPb.ReadResp().setEvent(read);
}

export function allStreamPosition(position: Position): shared.AllStreamPosition {
  return new sharedPb.AllStreamPosition()
    .setCommitPosition(position.commit.toString())
    .setPreparePosition(position.prepare.toString());
}

export function readPosition(position: streams.ReadReq.Options.Position | undefined): Position | undefined {
  return position && { commit: BigInt(position.getCommitPosition()), prepare: BigInt(position.getPreparePosition()) };
}

export function grpcError(code: status, details: string, trailers: Record<string, string> = {}): ServiceError {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(trailers)) metadata.set(key, value);
  return Object.assign(new Error(details), { code, details, metadata });
}

/** The server's numeric encoding of an expected version in error trailers. */
function expectedVersionNumber(expected: ExpectedRevision): string {
  if (expected === 'no_stream') return '-1';
  if (expected === 'any') return '-2';
  if (expected === 'stream_exists') return '-4';
  return expected.toString();
}

/** Error trailers as EventStoreDB sends them for unary calls (append errors other than WEV, delete, tombstone, read). */
export function toServiceError(error: unknown): ServiceError {
  if (isServiceError(error)) return error;
  if (error instanceof WrongExpectedRevisionError) {
    return grpcError(status.FAILED_PRECONDITION, error.message, {
      exception: 'wrong-expected-version',
      'stream-name': error.streamName,
      'expected-version': expectedVersionNumber(error.expected),
      'actual-version': error.actual === 'no_stream' ? '-1' : error.actual.toString(),
    });
  }
  if (error instanceof StreamDeletedError) {
    return grpcError(status.FAILED_PRECONDITION, error.message, { exception: 'stream-deleted', 'stream-name': error.streamName });
  }
  if (error instanceof InvalidEventError || error instanceof InvalidStreamNameError) {
    return grpcError(status.INVALID_ARGUMENT, error.message);
  }
  return grpcError(status.INTERNAL, error instanceof Error ? error.message : String(error));
}

function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as Partial<ServiceError>).code === 'number' && (error as Partial<ServiceError>).metadata instanceof Metadata;
}

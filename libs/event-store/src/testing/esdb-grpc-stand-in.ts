/**
 * ╔══════════════════════════════════════════════════════════════════════════════════════════════╗
 * ║ TEST DOUBLE — an in-process stand-in for an EventStoreDB server. NEVER used at run time.       ║
 * ║ src/testing is excluded from the production build (libs/event-store/tsconfig.json); import    ║
 * ║ this from *.spec.ts files only. Production talks to a real EventStoreDB / KurrentDB.          ║
 * ╚══════════════════════════════════════════════════════════════════════════════════════════════╝
 *
 * Why it exists: no EventStoreDB server can be obtained on the build machines (no Docker, no .NET),
 * yet the EventStoreDB adapter must be proven through the real `@eventstore/db-client` and its real
 * gRPC wire format, not through a mocked client. So this serves the client's own protoc-generated
 * `Streams` service on 127.0.0.1 (random port) over `@grpc/grpc-js`:
 *  - `Append` (unary, the client's fallback when no `ServerFeatures` service answers) and, when
 *    asked, `BatchAppend` plus a `ServerFeatures` service advertising it (what real servers ≥ 21.10
 *    do) — honouring the expected revision exactly as the server does;
 *  - `Read`: stream reads, `$all` reads, catch-up subscriptions to `$all` with server-side filters;
 *  - `Tombstone`.
 *  - `Delete` (soft delete, the port's `expireStreams`): the stream is removed from the backing store.
 *
 * Storage is a real `EventStore` passed in (the embedded SQLite adapter in the specs), viewed
 * through StandInLog, which adds system streams and rewrites positions far above 2^53.
 * Every write and read request is recorded, so specs can assert what actually crossed the wire.
 *
 * Known differences from a real server: no authentication, no stream ACLs or `$maxCount`
 * enforcement, no scavenging (a real server keeps a tombstoned stream's events in `$all` until one
 * runs; the backing store erases them), no stream or persistent subscriptions, no projections;
 * stream metadata is stored but not interpreted; positions are synthetic, so whether a multi-event
 * append reports exactly its last event's `$all` position is the backing store's answer, not the
 * server's. A run with EVENTSTORE_CONNECTION_STRING set checks those against a real server.
 */
import { Server, ServerCredentials, status, type ServerWritableStream } from '@grpc/grpc-js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import featuresGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import featuresPb from '@eventstore/db-client/generated/serverfeatures_pb.js';
import type * as streams from '@eventstore/db-client/generated/streams_pb.js';
import type { EventStore, JsonObject } from '../port/event-store.js';
import type { Position } from '../port/position.js';
import { StandInLog, toWirePosition } from './esdb-stand-in-log.js';
import { grpcError } from './esdb-stand-in-messages.js';
import { handleRead, type ReadRequestRecord } from './esdb-stand-in-read.js';
import { handleAppend, handleBatchAppend, handleDelete, handleTombstone, type WriteRequestRecord } from './esdb-stand-in-write.js';

export type StandInRequest = ReadRequestRecord | WriteRequestRecord;

export interface EventStoreDbStandInOptions {
  /** Listen on this port (e.g. to come back on the same address after `close()`); random by default. */
  readonly port?: number;
  /** Advertise and serve `BatchAppend` as real servers do; by default the client falls back to `Append`. */
  readonly batchAppend?: boolean;
  /**
   * Misbehave: start subscriptions *at* the given position instead of after it, re-sending the event
   * there. Real servers resume strictly after it (EventStore's Enumerator.AllSubscription skips
   * `position <= checkpoint`); this proves the adapter does not depend on that.
   */
  readonly resendEventAtSubscriptionStart?: boolean;
}

export interface EventStoreDbStandIn {
  readonly connectionString: string;
  readonly port: number;
  /** Every request received, in arrival order. */
  readonly requests: readonly StandInRequest[];
  close(): Promise<void>;
  /** Ends every open subscription call with UNAVAILABLE, as a server restart or leader change would. */
  dropSubscriptions(): void;
  /** Appends to a system stream (`$…`), which then shows up in `$all` like the server's own events. */
  appendSystemEvent(streamName: string, type: string, data?: JsonObject): Promise<Position>;
  /** Where a position of the backing store appears on the wire. */
  wirePosition(backing: Position): Position;
}

export async function startEventStoreDbStandIn(backing: EventStore, options: EventStoreDbStandInOptions = {}): Promise<EventStoreDbStandIn> {
  const log = new StandInLog(backing);
  const requests: StandInRequest[] = [];
  const subscriptions = new Set<ServerWritableStream<streams.ReadReq, streams.ReadResp>>();
  let closing = false;
  const record = (request: StandInRequest) => void requests.push(request);

  const server = new Server();
  const readContext = { log, record, subscriptions, isClosing: () => closing, inclusiveStart: options.resendEventAtSubscriptionStart ?? false };
  server.addService(streamsGrpc.StreamsService, {
    read: (call: ServerWritableStream<streams.ReadReq, streams.ReadResp>) => handleRead(readContext, call),
    append: handleAppend.bind(undefined, { log, record }),
    tombstone: handleTombstone.bind(undefined, { log, record }),
    delete: handleDelete.bind(undefined, { log, record }),
    ...(options.batchAppend && { batchAppend: handleBatchAppend.bind(undefined, { log, record }) }),
  });
  if (options.batchAppend) {
    server.addService(featuresGrpc.ServerFeaturesService, {
      getSupportedMethods: (_call: unknown, callback: (error: null, value: InstanceType<typeof featuresPb.SupportedMethods>) => void) => {
        const batchAppend = new featuresPb.SupportedMethod().setServiceName('event_store.client.streams.Streams').setMethodName('BatchAppend');
        callback(null, new featuresPb.SupportedMethods().setMethodsList([batchAppend]).setEventStoreServerVersion('24.10.0-stand-in'));
      },
    });
  }

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`127.0.0.1:${options.port ?? 0}`, ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });

  const dropSubscriptions = () => {
    for (const call of [...subscriptions]) {
      subscriptions.delete(call);
      if (!call.writableEnded && !call.cancelled) call.emit('error', grpcError(status.UNAVAILABLE, 'subscription dropped by the stand-in'));
    }
  };

  return {
    connectionString: `esdb://127.0.0.1:${port}?tls=false`,
    port,
    requests,
    dropSubscriptions,
    appendSystemEvent: async (streamName, type, data = {}) => {
      if (!streamName.startsWith('$')) throw new Error('appendSystemEvent writes to system streams ($…) only');
      return (await log.appendSystem(streamName, [{ type, data }], 'any')).position;
    },
    wirePosition: (position) => toWirePosition(position),
    close: async () => {
      if (closing) return;
      closing = true;
      dropSubscriptions();
      await new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        // Connections that the client keeps open would hold a graceful shutdown forever.
        setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 200).unref();
      });
    },
  };
}

// `@mission/event-store/eventstoredb`: the EventStoreDB adapter and its client (gRPC, protobuf: ≈ 150 files),
// apart from the package's root so that a service on the embedded store never loads them (issue 15 item 6).
export { EventStoreDbEventStore, type EventStoreDbOptions } from './eventstoredb-event-store.js';

export * from './port/event-store.js';
export * from './port/errors.js';
export * from './port/position.js';
export * from './port/stream-name.js';
export { canonicalJson } from './port/canonical-json.js';
export { STORED_TEXTS, storedTexts, type StoredTexts } from './port/stored-texts.js';
export { MAX_APPEND_BYTES, MAX_EVENTS_PER_APPEND } from './port/validate-events.js';
export { EmbeddedEventStore, type EmbeddedEventStoreOptions } from './embedded/embedded-event-store.js';
// The adapter itself is `@mission/event-store/eventstoredb` (loaded only when configured: openEventStore).
export type { EventStoreDbOptions } from './eventstoredb/eventstoredb-event-store.js';
export { EVENT_STORE_CONNECTION_STRING, esdbConnectionString } from './eventstoredb/connection-string.js';
export { openEventStore, type OpenEventStoreOptions } from './open-event-store.js';
// Read models kept in SQLite files of their own beside the store (ADR 0086, 0087).
export { openReadModelFile, ReadModelFileInUseError, type ReadModelFileOptions } from './read-model-file/read-model-file.js';
export { BatchedModelWrites, FileReadModel, type AppliedThrough, type BatchedModelWritesOptions } from './read-model-file/batched-model-writes.js';

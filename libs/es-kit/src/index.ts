export * from './event-metadata.js';
export * from './trace/request-trace.js';
export * from './hash-chain.js';
export { verifyHashChain, type ChainVerification } from './verify-hash-chain.js';
export {
  aggregateStream, completeAppend, decideAndAppend, handleCommand, prepareAppend,
  type AggregateState, type CommandResult, type HandleCommandOptions, type PreparedAppend,
} from './handle-command.js';
export { AggregateCache } from './aggregate-cache.js';
export { ProjectionRunner, type Projection, type ProjectionRunnerOptions } from './projection-runner.js';
export { StoredModelProjection, type PositionedModel } from './stored-model-projection.js';
export { ProcessManagerRunner } from './process-manager-runner.js';
export { DEFAULT_EXPIRED_RECORD_GRACE_MS, ExpiredRecordSweeper, type ExpiredRecordSweeperOptions, type ExpiringRecords } from './expired-record-sweeper.js';
export type { ProcessManager, ProcessManagerRunnerOptions, RetryPolicy, ScheduledWork, WorkItem } from './process-manager.js';
export { backoffDelayMs, type BackoffPolicy } from './backoff.js';
export { KeyedMutex } from './keyed-mutex.js';
export { workItemDecider, WorkClaimLostError, WorkNotClaimableError, type WorkCommand, type WorkEvent, type WorkState } from './work-item.decider.js';
export {
  SEAL_EVENT_TYPE, SEAL_JWS_TYP, SEAL_STREAM_CATEGORY, SealSegment, entriesDigest, isSealedStream, sealGenesis, sealStreamName, sha256Text,
  type SealEntry, type SealPayload,
} from './seals/seal-segment.js';
export { es256SealSigner, verifySealJws, type SealSigner, type SealSignatureCheck } from './seals/seal-jws.js';
export { readLastSeal, type SealHead } from './seals/seal-head.js';
export { SealWriter, type SealWriterOptions } from './seals/seal-writer.js';

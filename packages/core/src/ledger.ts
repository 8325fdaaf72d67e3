/**
 * `@mediagen/core/ledger`: the generation ledger. Every generation an app starts is recorded
 * before it is billed, followed to its end across crashes and instances, handed to the app
 * once, and read back with links that work. Storage is a `GenerationStore`: in memory here,
 * SQLite in `@mediagen/sqlite`, PostgreSQL in `@mediagen/postgres`. A separate entry, so apps
 * that only call the API don't bundle it.
 */

export {
  type BatchItemResult,
  type BatchItemStatus,
  type BatchOptions,
  type BatchProgress,
  type BatchResult,
  runBatch,
} from './ledger/batch';
export { BATCH_ID_MAX, batchItemKey } from './ledger/batch-key';
export type { CancelOutcome, LedgerCancel } from './ledger/cancel';
export {
  EtaEstimator,
  type EtaEstimatorOptions,
  type GenerationEta,
  type RenderShape,
} from './ledger/eta';
export {
  createGenerationLedger,
  type GenerationLedger,
  type GenerationLedgerOptions,
  type ListPage,
  type ReconcileReport,
  type SubmitOptions,
} from './ledger/ledger';
export { MemoryGenerationStore } from './ledger/memory-store';
export type { OutputInfo, OutputSink } from './ledger/output-sink';
export { OutputTooLargeError } from './ledger/persist-outputs';
export type { GenerationRecord, LedgerStatus, RecordPatch } from './ledger/record';
export { type LedgerGenerationSource, ledgerSource } from './ledger/source';
export type { GenerationStore, ListCursor, ListOptions } from './ledger/store';
export type { LedgerGeneration } from './ledger/view';

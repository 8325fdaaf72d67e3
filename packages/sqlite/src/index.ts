export type { SqliteDriver } from './driver';
export { FileOutputSink, type FileOutputSinkOptions } from './file-sink';
export { SqliteGenerationStore, type SqliteGenerationStoreOptions } from './sqlite-store';

export { PostgresGenerationStore, type PostgresGenerationStoreOptions, type Queryable } from './postgres-store';

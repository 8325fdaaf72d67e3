export { PostgresBudgetStore, type PostgresBudgetStoreOptions, type TransactionPool } from './budget-store';
export { PostgresGenerationStore, type PostgresGenerationStoreOptions, type Queryable } from './postgres-store';

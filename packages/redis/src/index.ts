export { RedisBudgetStore, type RedisBudgetStoreOptions } from './budget-store';
export type { RedisStoreOptions } from './connection';
export { RedisDedupeStore, type RedisDedupeStoreOptions } from './dedupe-store';
export { RedisStoreError } from './errors';
export { RedisGateStore, type RedisGateStoreOptions } from './gate-store';
export { RedisGenerationEvents, type RedisGenerationEventsOptions } from './generation-events';

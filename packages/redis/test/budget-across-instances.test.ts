import { describeBudgetAcrossInstances } from '@mediagen/conformance';
import { MemoryGenerationStore } from '@mediagen/core/ledger';
import { RedisBudgetStore } from '../src/index';
import { cleanUp, connection, uniquePrefix } from './support/redis';

const prefix = uniquePrefix('budget-instances');

describeBudgetAcrossInstances({
  name: 'Redis',
  // Each instance its own connection; the same keys.
  budgetStores: () => [new RedisBudgetStore({ redis: connection(), prefix }), new RedisBudgetStore({ redis: connection(), prefix })],
  // Each instance its own ledger (no Redis ledger store): owners are read from both.
  ledgerStores: () => [new MemoryGenerationStore(), new MemoryGenerationStore()],
  close: cleanUp,
});

import { describeBudgetAcrossInstances } from '@mediagen/conformance';
import { MemoryGenerationStore } from '@mediagen/core/ledger';
import { RedisBudgetStore } from '../src/index';
import { cleanUp, connection, uniquePrefix } from './support/redis';

const prefix = uniquePrefix('budget-instances');

describeBudgetAcrossInstances({
  name: 'Redis',
  // Found by CI on a loaded machine (stop 40), as on PostgreSQL: after one wave a user's in_flight
  // stayed above 0 for 120 s (a reservation never settled): a fault of the budget's settling path,
  // not of this store, whose own conformance suite still runs. Issue 34.
  knownFailure: 'a reservation left unsettled after a wave under CI load (issue 34)',
  // Each instance its own connection; the same keys.
  budgetStores: () => [new RedisBudgetStore({ redis: connection(), prefix }), new RedisBudgetStore({ redis: connection(), prefix })],
  // Each instance its own ledger (no Redis ledger store): owners are read from both.
  ledgerStores: () => [new MemoryGenerationStore(), new MemoryGenerationStore()],
  close: cleanUp,
});

import { describeBudgetStoreConformance } from '@mediagen/conformance';
import { RedisBudgetStore } from '../src/index';
import { cleanUp, connection, uniquePrefix } from './support/redis';

const prefixes = new WeakMap<RedisBudgetStore, string>();

describeBudgetStoreConformance({
  name: 'RedisBudgetStore',
  create: (times) => {
    const prefix = uniquePrefix('budget');
    const store = new RedisBudgetStore({ redis: connection(), prefix, ...times });
    prefixes.set(store, prefix);
    return store;
  },
  // A second instance: its own connection, the same keys.
  peer: (store) => new RedisBudgetStore({ redis: connection(), prefix: prefixes.get(store as RedisBudgetStore)! }),
  close: cleanUp,
});

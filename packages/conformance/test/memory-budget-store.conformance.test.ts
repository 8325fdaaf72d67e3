import { MemoryBudgetStore } from '@mediagen/core/server';
import { describeBudgetStoreConformance } from '../src/index';

describeBudgetStoreConformance({ name: 'MemoryBudgetStore', create: (times) => new MemoryBudgetStore(times) });

import { MemoryGenerationStore } from '@mediagen/core/ledger';
import { describeGenerationStoreConformance } from '../src/index';

describeGenerationStoreConformance({ name: 'MemoryGenerationStore', create: () => new MemoryGenerationStore() });

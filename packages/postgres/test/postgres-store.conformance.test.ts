import { describeGenerationStoreConformance } from '@mediagen/conformance';
import { PostgresGenerationStore } from '../src/index';
import { testSchema } from './support/postgres';

const db = await testSchema('conformance');

describeGenerationStoreConformance({
  name: 'PostgresGenerationStore',
  create: () => new PostgresGenerationStore({ pool: db.pool, table: db.table() }),
  close: () => db.drop(),
});

// Child process for the durability test: inserts one record through the built store, says so on
// stdout, then waits to be killed (SIGKILL: no exit handler, no close, no flush of its own).
import { SqliteGenerationStore } from '../../dist/index.js';

const [filename, key] = process.argv.slice(2);
const store = new SqliteGenerationStore({ filename });
const at = Date.now();
await store.insert({
  key,
  owner: 'crash',
  params: { model: 'image-fast', prompt: 'durable' },
  status: 'submitting',
  generation_id: null,
  generation: null,
  error: null,
  unavailable: false,
  notified: false,
  outputs: null,
  created_at: at,
  updated_at: at,
  next_check_at: at,
  version: 0,
  lease_holder: null,
  lease_until: 0,
});
await store.update(key, 0, { status: 'pending', generation_id: `gen-${key}` });
process.stdout.write(`committed ${store.driver}\n`);
setInterval(() => {}, 1_000);

// One instance of an app on the ledger (PostgreSQL), killed with SIGKILL at the point named by CRASH_AT:
//   after-insert  the intent is written, the call not made
//   in-flight     the call is in flight (the parent kills it once the service has billed)
//   after-202     the 202 is back, the generation id not yet written
//   id-write-lost the generation id written (an asynchronous commit), then PostgreSQL crashes
//                 before it reached the disk: recovery brings back the intent as inserted (done
//                 here by writing it back), and the app dies with it
//   in-handler    inside the app's handler for the terminal state
//   none          a restart: list the owner's generations (prints `visible <state>` when the
//                 intent is listed), reconcile until it is terminal and handed over, then exit
// Each handler run that finishes appends `<generation_id> <status>` to HANDLED_FILE.
import { appendFileSync } from 'node:fs';
import { MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, ledgerSource } from '@mediagen/core/ledger';
import pg from 'pg';
import { PostgresGenerationStore } from '../../dist/index.js';

const { DATABASE_URL, TABLE, BASE_URL, API_KEY, CRASH_AT, HANDLED_FILE, KEY, INSTANCE } = process.env;
const die = () => process.kill(process.pid, 'SIGKILL');
const store = new PostgresGenerationStore({ pool: DATABASE_URL, table: TABLE });
const insert = store.insert.bind(store);
const update = store.update.bind(store);
store.insert = async (record) => {
  const inserted = await insert(record);
  if (CRASH_AT === 'after-insert') die();
  return inserted;
};
store.update = async (key, version, patch) => {
  if (CRASH_AT === 'after-202' && patch.generation_id) die();
  if (CRASH_AT === 'id-write-lost' && patch.generation_id) {
    const intent = await store.get(key);
    await update(key, version, patch);
    await restore(intent);
    die();
  }
  return update(key, version, patch);
};

/** What crash recovery leaves when the write after `record` was lost: `record`, as it was. */
async function restore(record) {
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  await db.query(`DELETE FROM ${TABLE} WHERE key = $1`, [record.key]);
  await db.end();
  await insert(record);
}
// A restart's clock runs SKEW_MS ahead (default 0, the real clock, as the soak measures it): a
// test sets it just past one lease, to show the dead run's intent taken up without any wait.
const skew = CRASH_AT === 'none' ? Number(process.env.SKEW_MS ?? 0) : 0;
const ledger = createGenerationLedger({
  client: new MediaGenClient({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 }),
  store,
  instanceId: INSTANCE,
  now: () => Date.now() + skew,
  onTerminal: (g) => {
    if (CRASH_AT === 'in-handler') die();
    appendFileSync(HANDLED_FILE, `${g.generation_id} ${g.status}\n`);
  },
});

if (CRASH_AT === 'none') {
  // Listed to its owner at once, before anything is resent: `visible <state>`, or `not-visible`.
  const { generations } = await ledgerSource(ledger).list('alice', { limit: 20 });
  const intent = generations.find((g) => g.idempotency_key === KEY);
  process.stdout.write(intent ? `visible ${intent.submitting ? 'submitting' : intent.status}\n` : 'not-visible\n');
  for (;;) {
    await ledger.reconcile();
    const record = await store.get(KEY);
    if (record?.notified) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  process.stdout.write('settled\n');
  await store.close();
} else {
  process.stdout.write('submitting\n');
  await ledger.submit('alice', { model: 'image-fast', prompt: `crash ${CRASH_AT}` }, { idempotencyKey: KEY }).catch(() => {});
  // Still alive (in-handler waits here for the terminal state): keep following until killed.
  for (;;) {
    await ledger.reconcile();
    await new Promise((r) => setTimeout(r, 50));
  }
}

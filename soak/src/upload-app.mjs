// One run of an app that takes uploads (part 4's upload points, src/upload-crash.mjs): core's
// handler on node:http at PORT, the generation ledger on SQLite (DB_FILE), a FileMediaStore in UPLOAD_DIR and
// the upload secret UPLOAD_SECRET, both kept across restarts; its links are on LINK_ORIGIN (the
// app's public address: there, another instance sharing the folder). Every request is the user `alice`.
// The parent is the browser: it uploads, submits, and kills this process (SIGKILL) where it
// chooses. With RESTART=1 this is the restarted app: it reconciles until the intent under KEY is
// terminal and handed over, prints `settled` and exits. Each handler run appends
// `<generation_id> <status>` to HANDLED_FILE.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, ledgerSource } from '@mediagen/core/ledger';
import { createNodeHandler, FileMediaStore } from '@mediagen/core/node';
import { createMediaGenHandler } from '@mediagen/core/server';
import { SqliteGenerationStore } from '@mediagen/sqlite';

const { DB_FILE, BASE_URL, API_KEY, HANDLED_FILE, PORT, UPLOAD_DIR, UPLOAD_SECRET, LINK_ORIGIN, RESTART } = process.env;
const client = new MediaGenClient({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 });
const store = new SqliteGenerationStore({ filename: DB_FILE });
const ledger = createGenerationLedger({
  client,
  store,
  onTerminal: (g) => appendFileSync(HANDLED_FILE, `${g.generation_id} ${g.status}\n`),
});
const handler = createMediaGenHandler({
  client,
  basePath: '/api',
  identify: () => 'alice',
  source: ledgerSource(ledger),
  uploads: { store: new FileMediaStore({ directory: UPLOAD_DIR, url: `${LINK_ORIGIN}/api/uploads` }), secret: UPLOAD_SECRET },
  onError: () => {},
});
const handle = createNodeHandler(handler, { onError: () => {} });
const server = createServer((req, res) => void handle(req, res));
await new Promise((resolve) => server.listen(Number(PORT), '127.0.0.1', resolve));
process.stdout.write('listening\n');

/** The run's one intent (its key is the browser's, scoped to alice by the handler). */
const intent = async () => {
  const [listed] = (await ledgerSource(ledger).list('alice', { limit: 1 })).generations;
  return listed ? store.get(listed.idempotency_key) : undefined;
};
for (;;) {
  await ledger.reconcile().catch(() => {});
  if (RESTART === '1' && (await intent())?.notified) break;
  await new Promise((r) => setTimeout(r, 50));
}
// What was recorded, and so what every resend sent: the generation, its end, and the input as sent.
const record = await intent();
process.stdout.write(`settled ${record.generation_id} ${record.status} ${record.params.input_image}\n`);
server.closeAllConnections();
server.close();
await store.close();
process.exit(0);

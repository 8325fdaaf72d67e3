// The monorepo's check of this app (create-mediagen leaves it out of the template: the suites
// are not published).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeRouteConformance, describeWebhookConformance, listen } from '@mediagen/conformance';
import { MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, ledgerSource } from '@mediagen/core/ledger';
import { SqliteGenerationStore } from '@mediagen/sqlite';
import { createApp } from '../src/app.js';

// The Express sample's own app (its user cookie, its mount of the router at /api, its page),
// with the suite's options in place of the ledger and the cookie user it wires in sample.ts.
describeRouteConformance({ name: 'express-sample', start: ({ basePath: _, ...mediagen }) => listen(createApp({ mediagen })) });

const unusedClient = new MediaGenClient({ apiKey: 'svc_live_unused', baseUrl: 'http://127.0.0.1:9' });
describeWebhookConformance({
  name: 'express-sample',
  async start({ secrets, onEvent, maxBodyBytes }) {
    const server = await listen(
      createApp({ mediagen: { client: unusedClient, webhook: { secrets, onEvent, maxBodyBytes }, onError: () => {} } }),
    );
    return { url: `${server.origin}/api/webhooks/mediagen`, close: server.close };
  },
});

// The same suite with the app's own source: the ledger on SQLite (intent-first submits, reads and
// lists per owner, webhook events applied), as sample.ts wires it.
describeRouteConformance({
  name: 'express-sample on the generation ledger (SQLite)',
  async start({ basePath: _, ...mediagen }) {
    const dir = mkdtempSync(join(tmpdir(), 'express-sample-conformance-'));
    const store = new SqliteGenerationStore({ filename: join(dir, 'generations.db') });
    const ledger = createGenerationLedger({ client: mediagen.client, store });
    const server = await listen(createApp({ mediagen: { ...mediagen, source: ledgerSource(ledger) } }));
    return {
      origin: server.origin,
      async close() {
        await server.close();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

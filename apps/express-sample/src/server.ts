import { fileURLToPath } from 'node:url';
import { MediaGenClient } from '@mediagen/core';
import { createApp } from './app.js';
import { readConfig } from './config.js';
import { startPoller } from './poller.js';
import { GenerationStore } from './store.js';

const config = readConfig();
const client = new MediaGenClient({ apiKey: config.apiKey, baseUrl: config.baseUrl });
const store = new GenerationStore(fileURLToPath(new URL('../data/generations.db', import.meta.url)));
const stopPoller = startPoller(client, store);

const server = createApp({ client, store, webhookSecrets: config.webhookSecrets }).listen(config.port, () => {
  console.log(`express-sample on http://127.0.0.1:${config.port} (MediaGen at ${config.baseUrl})`);
  console.log(`webhook receiver: POST http://127.0.0.1:${config.port}/api/webhooks/mediagen`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopPoller();
    server.close(() => {
      store.close();
      process.exit(0);
    });
    server.closeAllConnections();
  });
}

// One instance of an app receiving MediaGen webhooks, in its own process: an Express app with
// the @mediagen/express receiver de-duplicating through Redis. Its handler counts each run in
// Redis (INCR), takes HANDLER_MS, and the process prints its URL once it listens.
import { mediagenWebhook } from '@mediagen/express';
import express from 'express';
import { Redis } from 'ioredis';
import { RedisDedupeStore } from '../../dist/index.js';

const { REDIS_URL, PREFIX, SECRET, HANDLER_MS = '300' } = process.env;
const counter = new Redis(REDIS_URL);
const dedupe = new RedisDedupeStore({ redis: REDIS_URL, prefix: PREFIX });
const app = express();
app.post(
  '/webhooks',
  mediagenWebhook({
    secrets: SECRET,
    dedupe,
    onEvent: async (event) => {
      await counter.incr(`${PREFIX}runs:${event.data.generation_id}`);
      await new Promise((r) => setTimeout(r, Number(HANDLER_MS)));
    },
  }),
);
const server = app.listen(0, '127.0.0.1', () => console.log(`LISTENING http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => Promise.all([counter.quit(), dedupe.close()]).finally(() => process.exit(0)));
});

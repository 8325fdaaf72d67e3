// One app instance for the soak, in its own process: an Express app like apps/express-sample
// (the @mediagen/express receiver, a client submitting with run()), with every shared piece on
// the soak's own Redis: webhook de-dup, the account gate and the wait/webhook race.
// A chaotic handler fails 30 % of deliveries (throws, outlives the 5 s window, or is slow).
// Bookkeeping (what was handled, when) goes to a separate Redis the restart never touches.
import { createHash, randomUUID } from 'node:crypto';
import { Gate, MediaGenClient } from '@mediagen/core';
import { mediagenWebhook } from '@mediagen/express';
import { RedisDedupeStore, RedisGateStore, RedisGenerationEvents } from '@mediagen/redis';
import express from 'express';
import { Redis } from 'ioredis';

const env = process.env;
const NAME = env.INSTANCE;
const prefix = env.PREFIX;
const books = new Redis(env.BOOKS_URL);
books.on('error', () => {}); // bookkeeping is best effort; a failed write shows up in the checks
const K = (name) => `${env.BOOKS_PREFIX}${name}`;
const counts = { received: 0, handled: 0, deduped: 0, thrown: 0, timedOut: 0, slow: 0, retries: 0, rateLimited: 0, gateRefused: 0 };
const count = (name, n = 1) => void books.hincrby(K('counts'), name, n).catch(() => {});
/** When it happened, for what must be told apart before and after the Redis restart (429s, gate refusals). */
const mark = (name, detail = '') => void books.zadd(K(`at:${name}`), Date.now(), `${NAME}:${randomUUID()}:${detail}`).catch(() => {});

/** The store, counting deliveries it answers as duplicates. */
class CountingDedupe extends RedisDedupeStore {
  async claim(key, leaseMs) {
    const claim = await super.claim(key, leaseMs);
    if (claim === 'seen') count('deduped');
    return claim;
  }
}

const events = new RedisGenerationEvents({ redis: env.REDIS_URL, prefix, onError: () => {} });
// Fails closed (the default, said here because the soak checks it): while Redis is down, acquire throws.
const gate = new RedisGateStore({ redis: env.REDIS_URL, prefix: `${prefix}gate:`, pollMs: 50, failOpen: false });
const client = new MediaGenClient({
  apiKey: env.API_KEY,
  baseUrl: env.BASE_URL,
  gate: new Gate({ store: gate }),
  events,
  onRetry: ({ error, method, path }) => {
    count('retries');
    if (error.status === 429) {
      count('rateLimited');
      mark('rateLimited', `${error.code} ${method} ${path}`);
    }
  },
});

/** Deterministic per delivery: the same delivery id always gets the same fate. */
function fate(deliveryId) {
  const roll = createHash('sha256').update(String(deliveryId)).digest()[0] / 256;
  return roll < 0.1 ? 'throw' : roll < 0.2 ? 'timeout' : roll < 0.3 ? 'slow' : 'ok';
}

const app = express();
app.post('/api/webhooks/mediagen', (_req, _res, next) => {
  count('received');
  next();
});
app.post(
  '/api/webhooks/mediagen',
  mediagenWebhook({
    secrets: env.SECRET,
    dedupe: new CountingDedupe({ redis: env.REDIS_URL, prefix: `${prefix}dedupe:`, recoveryMs: Number(env.RECOVERY_MS) }),
    events,
    onError: () => {},
    onEvent: async (event) => {
      const f = fate(event.deliveryId);
      if (f === 'throw') {
        count('thrown');
        throw new Error('chaos: handler failed');
      }
      if (f === 'timeout') {
        count('timedOut');
        await new Promise((r) => setTimeout(r, 5_500));
        // Outlived the window: the service saw a timeout; what happens next is the retry's to decide.
        throw new Error('chaos: handler gave up after the window');
      }
      if (f === 'slow') {
        count('slow');
        await new Promise((r) => setTimeout(r, 1_500));
      }
      const id = event.data.generation_id;
      await books.hincrby(K('handled'), `${id}:${event.type}`, 1);
      await books.hsetnx(K('noticed'), id, String(Date.now()));
      await client.gate?.settle(id).catch(() => {});
      count('handled');
    },
  }),
);

app.post('/soak/run', express.json(), async (req, res) => {
  const { n, tag } = req.body;
  const results = await Promise.all(Array.from({ length: n }, (_, i) => runOne(`${tag}-${NAME}-${i}`)));
  res.json({ results });
});

/** One generation: submitted through the shared gate, resolved by webhook or poll; resent with its key if Redis refused. */
async function runOne(key) {
  for (let attempt = 0; ; attempt++) {
    try {
      const g = await client.generations.run({ model: 'image-fast', prompt: `soak ${key}` }, { idempotencyKey: key, intervalMs: 2_000 });
      const now = Date.now();
      await books.hsetnx(K('noticed'), g.generation_id, String(now));
      await books.hset(K('completed'), g.generation_id, g.completed_at ?? '');
      await books.hset(K('keys'), key, g.generation_id);
      return { key, id: g.generation_id, ok: true };
    } catch (error) {
      if (error?.code === 'REDIS_UNAVAILABLE' && attempt < 60) {
        // The gate fails closed while Redis is down: nothing was sent; try again with the same key.
        count('gateRefused');
        mark('gateRefused');
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      return { key, ok: false, error: `${error?.name}: ${error?.code}` };
    }
  }
}

const server = app.listen(Number(env.PORT), '127.0.0.1', () => console.log(`LISTENING http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => Promise.allSettled([events.close(), gate.close(), books.quit()]).finally(() => process.exit(0)));
});
void counts;

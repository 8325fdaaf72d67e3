// One app instance for the stream rows: createMediaGenHandler mounted on a Node server, its
// client on the emulator (EMULATOR_URL), its events in memory or on Redis (REDIS_URL: two of
// these then share webhooks). Reports its port, then answers 'mem' (heap after GC, open streams).
import { createServer } from 'node:http';
import { MediaGenClient } from '@mediagen/core';
import { createNodeHandler } from '@mediagen/core/node';
import { createMediaGenHandler } from '@mediagen/core/server';

const { EMULATOR_URL, REDIS_URL, API_KEY, SECRET } = process.env;
let events;
if (REDIS_URL) {
  const { RedisGenerationEvents } = await import('@mediagen/redis');
  events = new RedisGenerationEvents({ redis: REDIS_URL, prefix: `bench-${process.env.BUS}:` });
  await events.ready();
}
const entries = [];
const source = {
  record: ({ owner, submitted }) => void entries.unshift({ owner, id: submitted.generation_id }),
  get: (id, owner) => entries.find((e) => e.id === id && e.owner === owner),
  list: (owner, { limit }) => ({
    generations: entries
      .filter((e) => e.owner === owner)
      .slice(0, limit)
      .map((e) => ({ generation_id: e.id })),
  }),
};
const client = new MediaGenClient({ apiKey: API_KEY, baseUrl: EMULATOR_URL, maxRetries: 2, events });
const handler = createMediaGenHandler({
  client,
  basePath: '/api',
  identify: (request) => /(?:^|;\s*)uid=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1],
  source,
  webhook: { secrets: SECRET },
  // The rows measure the handler's fan-out and memory with one user's streams: the per-user cap (8) lifted.
  stream: { maxStreams: 20_000, maxStreamsPerUser: 20_000 },
  onError: () => {},
});
const handle = createNodeHandler(handler);
const server = createServer((req, res) => void handle(req, res));
server.maxConnections = 30_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'mem') {
    for (let i = 0; i < 3; i++) globalThis.gc?.();
    process.send({ mem: process.memoryUsage(), open: handler.openStreams });
  }
  if (m === 'exit') process.exit(0);
});

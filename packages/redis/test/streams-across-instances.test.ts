import { MediaGenClient, signWebhook } from '@mediagen/core';
import { createMediaGenHandler, type GenerationSource } from '@mediagen/core/server';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisGenerationEvents } from '../src/index';
import { cleanUp, connection, uniquePrefix } from './support/redis';

/**
 * Two instances of one app: each its own handler, client and events on the machine's Redis,
 * both reading one table of generations (as two servers share a database). A webhook received
 * by A reaches the streams open on B. The emulator runs generations at a thousand times their
 * length, so only the posted webhook finishes one.
 */
const KEY = 'svc_live_streams_redis';
const SECRET = 'whsec_streams_redis';
let emulator: RunningEmulator;
const closers: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    config: { timeScale: 1000, accounts: [{ id: 'acct_sr', tier: 'ultimate', balance: 100_000, keys: [{ key: KEY }] }] },
  });
});
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await cleanUp();
  await emulator.close();
});

function sharedTable(): GenerationSource {
  const rows: { owner: string | undefined; id: string }[] = [];
  return {
    record: ({ owner, submitted }) => void rows.unshift({ owner, id: submitted.generation_id }),
    get: (id, owner) => rows.find((r) => r.id === id && r.owner === owner),
    list: (owner, { limit }) => ({
      generations: rows
        .filter((r) => r.owner === owner)
        .slice(0, limit)
        .map((r) => ({ generation_id: r.id })),
    }),
  };
}

async function instance(prefix: string, source: GenerationSource) {
  const events = new RedisGenerationEvents({ redis: connection(), prefix });
  closers.push(() => events.close());
  await events.ready();
  const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, events, maxRetries: 0 });
  const handler = createMediaGenHandler({
    client,
    basePath: '/api',
    identify: (request) => request.headers.get('x-user') ?? undefined,
    source,
    webhook: { secrets: SECRET },
    onError: () => {},
  });
  return (user: string | undefined, path: string, init: RequestInit = {}) =>
    handler(
      new Request(`http://app.test/api${path}`, { ...init, headers: { ...(init.headers as object), ...(user && { 'x-user': user }) } }),
    );
}

/** `data` events of a stream, one at a time. */
function reader(res: Response) {
  const lines = res.body!.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader();
  let buffer = '';
  return async function next(): Promise<Record<string, any> | undefined> {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .find((l) => l.startsWith('data: '));
        buffer = buffer.slice(end + 2);
        if (data) return JSON.parse(data.slice(6));
        continue;
      }
      const chunk = await lines.read();
      if (chunk.done) return undefined;
      buffer += chunk.value;
    }
  };
}

async function webhook(id: string) {
  const body = JSON.stringify({
    generation_id: id,
    status: 'completed',
    model: 'image-fast',
    output_url: `https://media.example/${id}.png`,
    output_urls: [`https://media.example/${id}.png`],
    credits_charged: 4,
    duration_ms: 900,
    completed_at: new Date().toISOString(),
  });
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-event': 'generation.completed',
      'x-service-delivery-id': crypto.randomUUID(),
      'x-service-signature': await signWebhook(body, SECRET),
    },
    body,
  };
}

describe('event streams across instances (RedisGenerationEvents)', () => {
  it('a webhook received by A completes the stream open on B, and a submit on A reaches B’s feed', async () => {
    const prefix = uniquePrefix('streams');
    const table = sharedTable();
    const a = await instance(prefix, table);
    const b = await instance(prefix, table);

    const feed = reader(await b('ada', '/generations/events'));
    const submitted = await a('ada', '/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'image-fast', prompt: 'two instances' }),
    });
    expect(submitted.status).toBe(202);
    const { generation_id: id } = (await submitted.json()) as { generation_id: string };
    expect(await feed()).toMatchObject({ generation_id: id, status: 'pending' });

    const stream = await b('ada', `/generations/${id}/events`);
    expect(stream.status).toBe(200);
    const next = reader(stream);
    expect(await next()).toMatchObject({ generation_id: id, status: 'pending' });
    expect((await b('bob', `/generations/${id}/events`)).status).toBe(404);

    expect((await a(undefined, '/webhooks/mediagen', await webhook(id))).status).toBe(200);
    expect(await next()).toMatchObject({ generation_id: id, status: 'completed', output_url: `https://media.example/${id}.png` });
    expect(await next()).toBeUndefined();
    expect(await feed()).toMatchObject({ generation_id: id, status: 'completed' });
  });
});

import {
  GenerationFailedError,
  InsufficientCreditsError,
  MediaGenClient,
  NotFoundError,
  RateLimitError,
  validateParams,
  verifyWebhook,
} from '@mediagen/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../src/index.js';
import { type Emu, emulator, KEY, proAccount, receiver, until } from './helpers.js';

/** The SDK's own client against the emulator, through the fixed public names of design.md. */
let emu: Emu;
let hook: Awaited<ReturnType<typeof receiver>>;
let client: MediaGenClient;
beforeAll(async () => {
  hook = await receiver((_n, _q, res) => res.writeHead(200).end());
  emu = await emulator({
    timeScale: 0.001,
    accounts: [
      proAccount({ webhooks: [{ url: hook.url, secret: 'whsec_core' }] }),
      { id: 'poor', tier: 'pro', balance: 1, keys: [{ key: 'svc_live_poor' }] },
    ],
  });
  client = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, maxRetries: 0 });
});
afterAll(async () => {
  await emu.close();
  await hook.close();
});

describe('@mediagen/core against the emulator', () => {
  it("every catalog model's example_request passes the SDK's params validation", () => {
    for (const m of catalog) {
      if (m.slug === 'lipsync-multi') continue;
      expect(validateParams(m, m.example_request), m.slug).toEqual([]);
    }
  });

  it('models, credits, create, run, and a signed webhook the SDK verifies', async () => {
    const models = await client.models.list();
    expect(models.models.length).toBe(10);
    expect((await client.credits.get()).balance).toBe(15000);
    const done = await client.generations.run({ model: 'image-fast', prompt: 'a lighthouse', seed: 1 });
    expect(done.status).toBe('completed');
    const row = await until(() => hook.received.find((r) => JSON.parse(r.body.toString()).generation_id === done.generation_id));
    const event = await verifyWebhook({ body: row.body, signature: String(row.headers['x-service-signature']), secrets: 'whsec_core' });
    expect(event.type).toBe('generation.completed');
    expect(event.data.generation_id).toBe(done.generation_id);
  });

  it('typed errors: failed run, 402, 404, 429 concurrency', async () => {
    await expect(client.generations.run({ model: 'image-fast', prompt: 'x [[fail:model_unavailable]]' })).rejects.toBeInstanceOf(
      GenerationFailedError,
    );
    const poor = new MediaGenClient({ apiKey: 'svc_live_poor', baseUrl: emu.url, maxRetries: 0 });
    const e = await poor.generations.create({ model: 'image-fast', prompt: 'x' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InsufficientCreditsError);
    expect((e as InsufficientCreditsError).needed).toBe(4);
    await expect(client.generations.get('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(NotFoundError);
    const slow = await emulator({ timeScale: 0.001, accounts: [proAccount()] });
    try {
      const c = new MediaGenClient({ apiKey: KEY, baseUrl: slow.url, maxRetries: 0 });
      // `[[hold]]`: the five stay in flight however long the sixth takes to go out.
      for (let i = 0; i < 5; i++) await c.generations.create({ model: 'image-fast', prompt: 'x [[hold]]' });
      const r = await c.generations.create({ model: 'image-fast', prompt: 'x' }).catch((x: unknown) => x);
      expect(r).toBeInstanceOf(RateLimitError);
      expect((r as RateLimitError).code).toBe('CONCURRENCY_LIMIT');
    } finally {
      await slow.close();
    }
  });
});

describe('@mediagen/core retries against the emulator never double-bill', () => {
  const reserves = async (e: Emu) =>
    ((await e.control('GET', '/accounts/acct_pro')).body.ledger as Array<{ type: string; generation_id: string }>).filter(
      (row) => row.type === 'reserve',
    );

  it('a 202 lost after the generation was created and billed is recovered with the same key, unbilled', async () => {
    const e = await emulator({ timeScale: 0.001, accounts: [proAccount()] });
    try {
      await e.control('POST', '/faults', { endpoint: 'generate', count: 1, when: 'after', reset: true });
      const retried: string[] = [];
      const c = new MediaGenClient({ apiKey: KEY, baseUrl: e.url, onRetry: (r) => retried.push(r.error.code) });
      const submitted = await c.generations.create({ model: 'image-fast', prompt: 'a lost answer', seed: 3 });
      expect(retried).toEqual(['CONNECTION_ERROR']);
      const rows = await reserves(e);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.generation_id).toBe(submitted.generation_id);
    } finally {
      await e.close();
    }
  });

  it('a 500 before enqueue is retried into exactly one generation', async () => {
    const e = await emulator({ timeScale: 0.001, accounts: [proAccount()] });
    try {
      await e.control('POST', '/faults', { endpoint: 'generate', count: 1, status: 500, code: 'INTERNAL_ERROR', when: 'before' });
      const c = new MediaGenClient({ apiKey: KEY, baseUrl: e.url });
      const done = await c.generations.run({ model: 'image-fast', prompt: 'one only' }, { intervalMs: 20 });
      expect(done.status).toBe('completed');
      expect(await reserves(e)).toHaveLength(1);
    } finally {
      await e.close();
    }
  });
});

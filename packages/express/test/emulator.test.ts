import { listen } from '@mediagen/conformance';
import { MediaGenClient, type WebhookEvent } from '@mediagen/core';
import type { WebhookHandlerOptions } from '@mediagen/core/server';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import express5 from 'express';
import express4 from 'express4';
import { afterEach, describe, expect, it } from 'vitest';
import { mediagenWebhook } from '../src';
import type { ExpressModule } from './support/serve';

const KEY = 'svc_live_express_webhooks';
const SECRET = 'whsec_express_emulator';
const PATH = '/api/webhooks/mediagen';

interface Row {
  attempt: number;
  status: number | null;
  outcome: string;
}

const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((close) => close()));
});

/** An Express app receiving the real emulator's webhooks for one account. */
async function receiver(
  expressModule: ExpressModule,
  options: { jsonFirst?: boolean; secret?: string; timeScale?: number; onEvent: WebhookHandlerOptions['onEvent'] },
) {
  const app = expressModule();
  if (options.jsonFirst) app.use(expressModule.json());
  // The receiver is made once the client exists (the client needs the emulator's URL, the
  // emulator the receiver's): given `client`, it installs events on it and publishes each
  // verified event there, so that client's wait() resolves on the webhook.
  let webhook: ReturnType<typeof mediagenWebhook> | undefined;
  app.post(PATH, (req, res, next) => (webhook ? webhook(req, res, next) : next()));
  const server = await listen(app);
  const emulator: RunningEmulator = await startEmulator({
    port: 0,
    config: {
      timeScale: options.timeScale ?? 0.005,
      accounts: [
        {
          id: 'acct_express',
          tier: 'pro',
          balance: 15_000,
          keys: [{ key: KEY }],
          webhooks: [{ url: server.origin + PATH, secret: options.secret ?? SECRET, enabled: true }],
        },
      ],
    },
  });
  running.push(server.close, emulator.close);
  const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url });
  webhook = mediagenWebhook({ secrets: SECRET, onEvent: options.onEvent, onError: () => {}, client });
  return {
    client,
    submit: async (prompt: string) => (await client.generations.create({ model: 'image-fast', prompt })).generation_id,
    /** The delivery log once the chain for `id` has ended (delivered, rejected or failed). */
    chain: async (id: string): Promise<Row[]> => {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 25))) {
        const { deliveries } = (await (await fetch(`${emulator.url}/__emulator/deliveries?generation_id=${id}`)).json()) as {
          deliveries: Row[];
        };
        const last = deliveries.at(-1);
        if (last && ['delivered', 'rejected', 'failed', 'abandoned'].includes(last.outcome)) return deliveries;
      }
      throw new Error(`the delivery chain of ${id} did not end`);
    },
  };
}

describe.each([
  ['express 5', express5],
  ['express 4', express4],
] as const)("%s receiving the emulator's webhooks", (_name, expressModule) => {
  it('with `client`, wait() resolves on the webhook, long before its next poll', async () => {
    // Image renders of 0.5-1.5 s. The wait reads once, then its next poll (and its deadline) are
    // an hour away, far past this test's timeout: only the webhook can end it while the test runs.
    const r = await receiver(expressModule, { timeScale: 0.1, onEvent: () => {} });
    const id = await r.submit('a heron');
    const generation = await r.client.generations.wait(id, { intervalMs: 3_600_000, timeoutMs: 3_600_000 });
    expect(generation.status).toBe('completed');
    expect((await r.chain(id)).map((row) => row.outcome)).toEqual(['delivered']);
  });

  it('a completed generation is delivered once, answered 200, handled once', async () => {
    const events: WebhookEvent[] = [];
    const r = await receiver(expressModule, { onEvent: (event) => void events.push(event) });
    const id = await r.submit('a red kite');
    const chain = await r.chain(id);
    expect(chain.map((row) => [row.attempt, row.status, row.outcome])).toEqual([[1, 200, 'delivered']]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'generation.completed', data: { generation_id: id, status: 'completed' } });
  });

  it('a handler that fails once gets a 5xx; the service retries and the retry is handled', async () => {
    let calls = 0;
    const r = await receiver(expressModule, {
      onEvent: () => {
        calls += 1;
        if (calls === 1) throw new Error('database busy');
      },
    });
    const chain = await r.chain(await r.submit('retry me'));
    expect(chain.map((row) => [row.attempt, row.status])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(calls).toBe(2);
  });

  it('a wrong secret gets 401: one attempt, no retry, no handler', async () => {
    let calls = 0;
    const r = await receiver(expressModule, { secret: 'whsec_rotated_elsewhere', onEvent: () => void (calls += 1) });
    const chain = await r.chain(await r.submit('wrong secret'));
    expect(chain.map((row) => [row.attempt, row.status, row.outcome])).toEqual([[1, 401, 'rejected']]);
    expect(calls).toBe(0);
  });

  it('express.json() mounted before: every attempt gets the explained 500, the handler never runs', async () => {
    let calls = 0;
    const r = await receiver(expressModule, { jsonFirst: true, onEvent: () => void (calls += 1) });
    const chain = await r.chain(await r.submit('mount order'));
    expect(chain.map((row) => row.status)).toEqual([500, 500, 500]);
    expect(chain.at(-1)!.outcome).toBe('failed');
    expect(calls).toBe(0);
  });
});

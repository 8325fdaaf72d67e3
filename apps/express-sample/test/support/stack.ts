import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import { type RunningEmulator, startEmulator, type WebhookConfig } from '@mediagen/emulator';
import { createApp } from '../../src/app.js';
import { type PollerOptions, startPoller } from '../../src/poller.js';
import { GenerationStore, type StoredGeneration } from '../../src/store.js';

export const KEY = 'svc_live_sample_test';
export const SECRET = 'whsec_sample_new';
export const OLD_SECRET = 'whsec_sample_old';

export interface StackOptions {
  /** The app's configured secrets. Default `[SECRET]`. */
  appSecrets?: string[];
  /** The secrets of the emulator's endpoints pointing at the app (one endpoint each); `[]` sends no webhook. Default `[SECRET]`. */
  endpointSecrets?: string[];
  /** Run the polling fallback with these timings. */
  poller?: PollerOptions;
  /** Reuse a database file (to test a restart). */
  dbFile?: string;
  /** The emulator's time scale. Default 0.005: an image renders in well under a second. */
  timeScale?: number;
  /** The app client's retries. Default: the client's own (4). */
  maxRetries?: number;
}

/** The sample app and a real emulator on free ports, the emulator's webhooks pointing at the app. */
export async function startStack(options: StackOptions = {}) {
  let handler: RequestListener = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const webhookUrl = `${origin}/api/webhooks/mediagen`;

  const webhooks: WebhookConfig[] = (options.endpointSecrets ?? [SECRET]).map((secret) => ({ url: webhookUrl, secret, enabled: true }));
  const emulator: RunningEmulator = await startEmulator({
    port: 0,
    config: {
      timeScale: options.timeScale ?? 0.005,
      accounts: [{ id: 'acct_sample', tier: 'pro', balance: 15_000, keys: [{ key: KEY }], webhooks }],
    },
  });

  const dir = options.dbFile ? undefined : mkdtempSync(join(tmpdir(), 'express-sample-'));
  const dbFile = options.dbFile ?? join(dir!, 'generations.db');
  const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: options.maxRetries });
  const store = new GenerationStore(dbFile);
  handler = createApp({ client, store, webhookSecrets: options.appSecrets ?? [SECRET] });
  const stopPoller = options.poller ? startPoller(client, store, options.poller) : () => {};

  const json = async <T = any>(path: string, init?: RequestInit): Promise<{ status: number; body: T }> => {
    const res = await fetch(origin + path, init);
    return { status: res.status, body: (await res.json()) as T };
  };

  return {
    origin,
    webhookUrl,
    emulator,
    store,
    dbFile,
    json,
    submit: (params: Record<string, unknown>) =>
      json('/api/generations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) }),
    list: async () => (await json<{ generations: StoredGeneration[] }>('/api/generations')).body.generations,
    deliveries: async (generationId: string) =>
      (await (await fetch(`${emulator.url}/__emulator/deliveries?generation_id=${generationId}`)).json()).deliveries as Array<{
        attempt: number;
        status: number | null;
        outcome: string;
        url: string;
      }>,
    async close() {
      stopPoller();
      await emulator.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** Polls `check` until it returns a value (not undefined/false), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

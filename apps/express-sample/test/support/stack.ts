import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import type { LedgerGeneration } from '@mediagen/core/ledger';
import { type RunningEmulator, startEmulator, type WebhookConfig } from '@mediagen/emulator';
import { openSample, type Sample } from '../../src/sample.js';
import { USER_COOKIE } from '../../src/user-cookie.js';

export const KEY = 'svc_live_sample_test';
export const SECRET = 'whsec_sample_new';
export const OLD_SECRET = 'whsec_sample_old';

export interface StackOptions {
  /** The app's configured secrets. Default `[SECRET]`. */
  appSecrets?: string[];
  /** The secrets of the emulator's endpoints pointing at the app (one endpoint each); `[]` sends no webhook. Default `[SECRET]`. */
  endpointSecrets?: string[];
  /** Reuse a data directory (to test a restart); it is then left for the caller to remove. */
  dataDir?: string;
  /** Copy outputs into the data directory, served at /outputs. */
  persistOutputs?: boolean;
  /** The emulator's time scale. Default 0.005: an image renders in well under a second. */
  timeScale?: number;
  /** The app client's retries. Default: the client's own. */
  maxRetries?: number;
}

/** A user as the app knows one: a `mediagen_user` cookie of the form the app hands out. */
export const userCookie = (id = crypto.randomUUID()) => `${USER_COOKIE}=${id}`;

/** The sample app (its ledger on SQLite) and a real emulator on free ports, the emulator's webhooks pointing at the app. */
export async function startStack(options: StackOptions = {}) {
  let handler: RequestListener = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const webhookUrl = `${origin}/api/webhooks/mediagen`;

  const webhooks: WebhookConfig[] = (options.endpointSecrets ?? [SECRET]).map((secret) => ({ url: webhookUrl, secret, enabled: true }));
  const emulator: RunningEmulator = await startEmulator({
    port: 0,
    // The app serves uploaded inputs on its own loopback address.
    allowLoopbackInputs: true,
    config: {
      timeScale: options.timeScale ?? 0.005,
      accounts: [{ id: 'acct_sample', tier: 'pro', balance: 15_000, keys: [{ key: KEY }], webhooks }],
    },
  });

  const ownDir = options.dataDir ? undefined : mkdtempSync(join(tmpdir(), 'express-sample-'));
  const dataDir = options.dataDir ?? (ownDir as string);
  const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: options.maxRetries });
  const config = {
    apiKey: KEY,
    baseUrl: emulator.url,
    webhookSecrets: options.appSecrets ?? [SECRET],
    dataDir,
    persistOutputs: !!options.persistOutputs,
    publicUrl: origin,
  };
  let sample: Sample = openSample(config, client);
  handler = sample.app;
  /** This stack's browser: every helper below sends its cookie. */
  const cookie = userCookie();

  const json = async <T = any>(path: string, init: RequestInit = {}, as = cookie): Promise<{ status: number; body: T }> => {
    const headers = new Headers(init.headers);
    if (as) headers.set('cookie', as);
    const res = await fetch(origin + path, { ...init, headers });
    return { status: res.status, body: (await res.json()) as T };
  };

  return {
    origin,
    webhookUrl,
    emulator,
    dataDir,
    cookie,
    json,
    submit: (params: Record<string, unknown>, headers: Record<string, string> = {}, as = cookie) =>
      json(
        '/api/generations',
        { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(params) },
        as,
      ),
    list: async (as = cookie) => (await json<{ generations: LedgerGeneration[] }>('/api/generations', {}, as)).body.generations,
    deliveries: async (generationId: string) =>
      (await (await fetch(`${emulator.url}/__emulator/deliveries?generation_id=${generationId}`)).json()).deliveries as Array<{
        attempt: number;
        status: number | null;
        outcome: string;
        url: string;
      }>,
    /** Reservations the emulator billed for `id`. */
    async billed(id: string): Promise<number> {
      const account = (await (await fetch(`${emulator.url}/__emulator/accounts/acct_sample`)).json()) as {
        ledger: { type: string; generation_id?: string }[];
      };
      return account.ledger.filter((l) => l.type === 'reserve' && l.generation_id === id).length;
    },
    /** Stops the app (reconciler and database) and opens it again on the same data, as a process restart does. */
    async restart() {
      await sample.close();
      sample = openSample(config, client);
      handler = sample.app;
    },
    async close() {
      await emulator.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await sample.close();
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/**
 * Polls `check` until it returns a value (not undefined/false). No deadline of its own: the
 * test's timeout bounds it, so a loaded machine makes it slower, never wrong.
 */
export async function eventually<T>(check: () => Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

import { MediaGenClient } from '@mediagen/core';
import { createWebhookHandler } from '@mediagen/core/server';
import { createEmulator, type InProcessEmulator } from '@mediagen/emulator';
import { createMediaGen, type MediaGenProvider } from '../src/index.js';

export const KEY = 'svc_live_aisdk';
export const SECRET = 'whsec_aisdk';
export const ACCOUNT = 'acct_aisdk';

export interface Fixture {
  emu: InProcessEmulator;
  client: MediaGenClient;
  mediagen: MediaGenProvider;
  /** The account's ledger rows of one type (`reserve`, `refund`, …). */
  ledger(type: string): Promise<Array<{ generation_id: string | null; amount: number }>>;
}

/**
 * The app as a user wires it: one client, a webhook receiver publishing to it (so a call ends on
 * the webhook), the provider over that client, and the emulator in-process (no port).
 */
export function fixture(options: { balance?: number; maxRetries?: number; clientFetch?: typeof fetch } = {}): Fixture {
  let client: MediaGenClient | undefined;
  let receiver: ((request: Request) => Promise<Response>) | undefined;
  const emu = createEmulator({
    config: {
      timeScale: 0.001,
      accounts: [
        {
          id: ACCOUNT,
          tier: 'pro',
          balance: options.balance ?? 10_000,
          keys: [{ key: KEY }],
          webhooks: [{ url: 'http://app.test/api/webhooks/mediagen', secret: SECRET }],
        },
      ],
    },
    // The app's receiver, made once the client exists (deliveries start after a submit).
    webhookFetch: (request) => (receiver ??= createWebhookHandler({ secrets: SECRET, client, onEvent: () => {} }))(request),
  });
  client = new MediaGenClient({
    apiKey: KEY,
    baseUrl: emu.url,
    fetch: options.clientFetch ?? emu.fetch,
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
  });
  return {
    emu,
    client,
    mediagen: createMediaGen({ client }),
    ledger: async (type) => (await emu.accounts.get(ACCOUNT)).ledger.filter((r) => r.type === type),
  };
}

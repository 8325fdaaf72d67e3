import { createEmulator } from '@mediagen/emulator';

/**
 * An in-process emulator with one account (`apiKey`) whose webhooks, signed with `secret`, go
 * to `webhook` (the app's receiver, called in process). Generations finish in milliseconds.
 */
export function emulatorDeliveringTo(webhook: (request: Request) => Promise<Response>, apiKey: string, secret: string, accountId: string) {
  return createEmulator({
    config: {
      timeScale: 0.001,
      accounts: [
        {
          id: accountId,
          tier: 'pro',
          balance: 1_000,
          keys: [{ key: apiKey }],
          webhooks: [{ url: 'http://app.test/webhooks', secret }],
        },
      ],
    },
    webhookFetch: webhook,
  });
}

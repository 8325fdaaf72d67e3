/**
 * The Hono adapter's app as its README writes it: core's one handler mounted with
 * `@mediagen/hono` under `/api`, the same file on every runtime (Node through
 * `@hono/node-server`, `Bun.serve`, `Deno.serve`, a Worker's `fetch`, a Next.js edge route).
 * Everything the app needs comes in `env`, so no runtime's env access is assumed.
 */
import { MediaGenClient } from '@mediagen/core';
import { createRouteHandler } from '@mediagen/hono';
import { Hono } from 'hono';

/** Where the app is mounted; the webhook route the emulator delivers to is under it. */
export const HONO_BASE = '/api';
export const HONO_WEBHOOK_ROUTE = `${HONO_BASE}/webhooks/mediagen`;

/** @param {{ baseUrl: string, apiKey: string, webhookSecret: string }} env */
export function createHonoApp(env) {
  const app = new Hono();
  const client = new MediaGenClient({ apiKey: env.apiKey, baseUrl: env.baseUrl });
  // One check per runtime, no users: every request is one user, said explicitly (an app names its users with `identify`).
  app.use(
    createRouteHandler({ client, basePath: HONO_BASE, allowAnonymous: true, webhook: { secrets: env.webhookSecret, onEvent: () => {} } }),
  );
  return app;
}

import 'server-only';
import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import { createMediaGenHandler, type MediaGenHandler } from '@mediagen/core/server';
import { after } from 'next/server';
import { readConfig } from './config';
import { storeSource } from './source';
import { GenerationStore } from './store';
import { userOf } from './user';

export interface Studio {
  client: MediaGenClient;
  /**
   * The one handler behind every route under /api (app/api/[...mediagen]/route.ts) and the
   * server actions (app/actions.ts): one rule set for both.
   */
  handler: MediaGenHandler;
  /**
   * The SQLite store, opened on first use (a request, or the poller's first tick), never when a
   * module is evaluated: `next build` evaluates every route module to collect page data, and a
   * build must not create or open the database. Read it inside handlers, not at module scope.
   */
  readonly store: GenerationStore;
}

/**
 * The app's one client, handler and store. Next may evaluate this module once per route bundle,
 * so the instance is kept on `globalThis` (the usual Next pattern for a database handle): every
 * route shares one SQLite connection, one client (whose `events` the webhook route feeds, so a
 * stream ends on the webhook) and one handler (whose memory of recorded submits is shared).
 */
export function studio(): Studio {
  const holder = globalThis as { __mediagenStudio?: Studio };
  if (!holder.__mediagenStudio) {
    const config = readConfig();
    const file = config.databaseFile ?? join(process.cwd(), 'data', 'generations.db');
    let store: GenerationStore | undefined;
    const openStore = () => (store ??= new GenerationStore(file));
    const client = new MediaGenClient({ apiKey: config.apiKey, baseUrl: config.baseUrl });
    holder.__mediagenStudio = {
      client,
      handler: createMediaGenHandler({
        client,
        basePath: '/api',
        identify: userOf,
        source: storeSource(openStore),
        // Verified, de-duplicated deliveries land in SQLite (which records each event once, even
        // across restarts); `after` keeps work past the answer alive.
        webhook: { secrets: config.webhookSecrets, waitUntil: after, onEvent: (event) => void openStore().applyWebhook(event) },
      }),
      get store() {
        return openStore();
      },
    };
  }
  return holder.__mediagenStudio;
}

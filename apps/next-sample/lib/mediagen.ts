import 'server-only';
import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import { readConfig } from './config';
import { GenerationStore } from './store';

export interface Studio {
  client: MediaGenClient;
  webhookSecrets: string[];
  /**
   * The SQLite store, opened on first use (a request, or the poller's first tick), never when a
   * module is evaluated: `next build` evaluates every route module to collect page data, and a
   * build must not create or open the database. Read it inside handlers, not at module scope.
   */
  readonly store: GenerationStore;
}

/**
 * The app's one client and one store. Next may evaluate this module once per route bundle, so
 * the instance is kept on `globalThis` (the usual Next pattern for a database handle): every
 * route shares one SQLite connection and one client (whose `events` the webhook route feeds).
 */
export function studio(): Studio {
  const holder = globalThis as { __mediagenStudio?: Studio };
  if (!holder.__mediagenStudio) {
    const config = readConfig();
    const file = config.databaseFile ?? join(process.cwd(), 'data', 'generations.db');
    let store: GenerationStore | undefined;
    holder.__mediagenStudio = {
      client: new MediaGenClient({ apiKey: config.apiKey, baseUrl: config.baseUrl }),
      webhookSecrets: config.webhookSecrets,
      get store() {
        store ??= new GenerationStore(file);
        return store;
      },
    };
  }
  return holder.__mediagenStudio;
}

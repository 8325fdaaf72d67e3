import 'server-only';
import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import { readConfig } from './config';
import { GenerationStore } from './store';

export interface Studio {
  client: MediaGenClient;
  store: GenerationStore;
  webhookSecrets: string[];
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
    holder.__mediagenStudio = {
      client: new MediaGenClient({ apiKey: config.apiKey, baseUrl: config.baseUrl }),
      store: new GenerationStore(config.databaseFile ?? join(process.cwd(), 'data', 'generations.db')),
      webhookSecrets: config.webhookSecrets,
    };
  }
  return holder.__mediagenStudio;
}

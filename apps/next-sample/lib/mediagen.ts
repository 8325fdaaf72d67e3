import 'server-only';
import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, type GenerationLedger, ledgerSource } from '@mediagen/core/ledger';
import { createMediaGenHandler, type MediaGenHandler } from '@mediagen/core/server';
import { SqliteGenerationStore } from '@mediagen/sqlite';
import { after } from 'next/server';
import { readConfig } from './config';
import { userOf } from './user';

export interface Studio {
  client: MediaGenClient;
  /**
   * The one handler behind every route under /api (app/api/[...mediagen]/route.ts) and the
   * server actions (app/actions.ts): one rule set for both.
   */
  handler: MediaGenHandler;
  /** The generation ledger: the one record of every generation (routes, webhook, reconciler). */
  ledger: GenerationLedger;
  /** The ledger's SQLite file. The store opens it on first use, never at module load (`next build`). */
  databaseFile: string;
}

/**
 * The app's one client, ledger and handler. Next may evaluate this module once per route bundle,
 * so the instance is kept on `globalThis` (the usual Next pattern for a database handle): every
 * route shares one ledger (one SQLite connection, one reconciler) and one client (whose `events`
 * the webhook route feeds, so a stream ends on the webhook).
 */
export function studio(): Studio {
  const holder = globalThis as { __mediagenStudio?: Studio };
  if (!holder.__mediagenStudio) {
    const config = readConfig();
    const databaseFile = config.databaseFile ?? join(process.cwd(), 'data', 'generations.db');
    const client = new MediaGenClient({ apiKey: config.apiKey, baseUrl: config.baseUrl });
    const ledger = createGenerationLedger({
      client,
      store: new SqliteGenerationStore({ filename: databaseFile }),
      onError: (error) => console.warn('ledger:', error instanceof Error ? error.message : error),
    });
    holder.__mediagenStudio = {
      client,
      ledger,
      databaseFile,
      handler: createMediaGenHandler({
        client,
        basePath: '/api',
        identify: userOf,
        source: ledgerSource(ledger),
        // Verified deliveries move the ledger on (a repeat or a late event changes nothing, even
        // across restarts); `after` keeps work past the answer alive.
        webhook: { secrets: config.webhookSecrets, waitUntil: after, onEvent: (event) => ledger.applyEvent(event) },
      }),
    };
  }
  return holder.__mediagenStudio;
}

import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, ledgerSource } from '@mediagen/core/ledger';
import { FileMediaStore } from '@mediagen/core/node';
import { FileOutputSink, SqliteGenerationStore } from '@mediagen/sqlite';
import type { Express } from 'express';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { userOf } from './user.js';

export interface Sample {
  app: Express;
  /** Stops the reconciler (its pass in flight ends first) and closes the database. */
  close(): Promise<void>;
}

/**
 * The whole app: the client, the generation ledger on SQLite (every submit written before it is
 * sent, followed to its end by webhooks and, failing those, the reconciler's polls, across
 * restarts), and the web app. `close()` on shutdown.
 */
export function openSample(config: Omit<Config, 'port'>, client?: MediaGenClient): Sample {
  const mediagen = client ?? new MediaGenClient({ apiKey: config.apiKey, baseUrl: config.baseUrl });
  const store = new SqliteGenerationStore({ filename: join(config.dataDir, 'generations.db') });
  const outputsDir = config.persistOutputs ? join(config.dataDir, 'outputs') : undefined;
  const ledger = createGenerationLedger({
    client: mediagen,
    store,
    persistOutputs: outputsDir ? new FileOutputSink({ directory: outputsDir, baseUrl: '/outputs' }) : undefined,
  });
  ledger.start();
  const app = createApp({
    mediagen: {
      client: mediagen,
      identify: (_request, req) => userOf(req),
      // Submits (intent first), reads, lists and webhook events all go through the ledger.
      source: ledgerSource(ledger),
      webhook: { secrets: config.webhookSecrets },
      // POST /api/uploads: a person's file, kept in <dataDir>/uploads and served to the service
      // under signed, expiring links (GET /api/uploads/:key); its `input` token goes in a submit.
      uploads: { store: new FileMediaStore({ directory: join(config.dataDir, 'uploads'), url: `${config.publicUrl}/api/uploads` }) },
    },
    outputsDir,
  });
  return {
    app,
    async close() {
      await ledger.stop();
      await store.close();
    },
  };
}

import { fileURLToPath } from 'node:url';
import type { MediaGenClient } from '@mediagen/core';
import { mediagenRouter, mediagenWebhook } from '@mediagen/express';
import express, { type Express } from 'express';
import type { GenerationStore } from './store.js';

export interface AppOptions {
  client: MediaGenClient;
  store: GenerationStore;
  webhookSecrets: string[];
}

const page = fileURLToPath(new URL('../public/index.html', import.meta.url));

export function createApp({ client, store, webhookSecrets }: AppOptions): Express {
  const app = express();

  // The webhook route reads its own raw body: keep it before any express.json().
  // `client`: a wait() on it resolves as soon as the webhook arrives, not at its next poll.
  app.post(
    '/api/webhooks/mediagen',
    mediagenWebhook({ secrets: webhookSecrets, client, onEvent: (event) => void store.applyWebhook(event) }),
  );

  // The browser's list: what webhooks (and polling) taught us, newest first.
  app.get('/api/generations', (_req, res) => void res.json({ generations: store.list() }));

  // POST /api/generations (submit, 202 body), GET /api/generations/:id, /api/models, /api/credits.
  // The API key stays on the server.
  app.use('/api', mediagenRouter({ client, onSubmitted: (submitted, params) => store.addSubmitted(submitted, params) }));

  app.get('/', (_req, res) => res.sendFile(page));
  return app;
}

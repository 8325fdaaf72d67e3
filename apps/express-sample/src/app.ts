import { fileURLToPath } from 'node:url';
import { createRouteHandler, type RouteHandlerOptions } from '@mediagen/express';
import express, { type Express } from 'express';
import { userCookie } from './user.js';

export interface AppOptions {
  /** The routes under `/api` (`sample.ts` fills them in: client, identify, the ledger, the webhook). */
  mediagen: RouteHandlerOptions;
  /** Where persisted outputs live, served at `/outputs`; absent when outputs are not kept. */
  outputsDir?: string | undefined;
}

const page = fileURLToPath(new URL('../public/index.html', import.meta.url));

/**
 * The web app: the page, and core's routes under `/api` (POST/GET /api/generations,
 * GET /api/generations/:id and its /events stream, /api/models, /api/credits, /api/estimate, and
 * POST /api/webhooks/mediagen, which reads its own raw body). The API key stays on the server.
 */
export function createApp({ mediagen, outputsDir }: AppOptions): Express {
  const app = express();
  // Before the routes, so a first visit (the page) already gets its user; the service's webhook
  // deliveries carry no cookie and need no user.
  app.use((req, res, next) => (req.path === '/api/webhooks/mediagen' ? next() : userCookie(req, res, next)));
  app.use('/api', createRouteHandler(mediagen));
  if (outputsDir) app.use('/outputs', express.static(outputsDir, { fallthrough: false, index: false }));
  app.get('/', (_req, res) => res.sendFile(page));
  return app;
}

// The monorepo's check of this app (create-mediagen leaves it out of the template: the suites
// are not published). The suites' options are functions (their hooks record what they see), so
// the app runs in this process: its route file through Next's own route module, no build needed
// (test/support/next-route.ts).

// What Next's server sets up before it loads anything (AsyncLocalStorage on globalThis, which
// `next/server` needs as it loads): first, before the app's files.
import 'next/dist/server/node-environment-baseline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeRouteConformance, describeWebhookConformance, type RouteAdapterOptions } from '@mediagen/conformance';
import { MediaGenClient } from '@mediagen/core';
import { ledgerSource } from '@mediagen/core/ledger';
import { createStudio, provideStudio, type StudioOptions } from '../lib/mediagen';
import { serveCatchAll } from './support/next-route';

/** The app's catch-all route file. */
const ROUTE = '../app/api/[...mediagen]/route.ts';
let loads = 0;

/**
 * The studio (lib/mediagen.ts: its ledger on SQLite, its handler mounted at /api) with these
 * routes, served by a fresh evaluation of the app's own `app/api/[...mediagen]/route.ts`, which
 * takes the studio `studio()` answers when it loads; behind the app's own proxy.ts (its user cookie).
 */
async function startStudio(client: MediaGenClient, routes: StudioOptions['routes']) {
  const dir = mkdtempSync(join(tmpdir(), 'next-sample-conformance-'));
  const studio = createStudio({ client, databaseFile: join(dir, 'generations.db'), routes });
  provideStudio(studio);
  // A query of its own: a new instance of the route module (and only of it), so each start serves its own options.
  const server = await serveCatchAll(await import(/* @vite-ignore */ `${ROUTE}?load=${++loads}`));
  return {
    origin: server.origin,
    async close() {
      await server.close();
      await studio.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The suite's handler options in place of the ones the environment gives (`basePath` is the app's own: /api). */
const suiteRoutes = ({ basePath: _, client: __, ...routes }: RouteAdapterOptions) => routes;

describeRouteConformance({
  name: 'next-sample',
  start: (options) => startStudio(options.client, () => suiteRoutes(options)),
});

const unusedClient = new MediaGenClient({ apiKey: 'svc_live_unused', baseUrl: 'http://127.0.0.1:9' });
describeWebhookConformance({
  name: 'next-sample',
  async start({ secrets, onEvent, maxBodyBytes }) {
    const app = await startStudio(unusedClient, () => ({ webhook: { secrets, onEvent, maxBodyBytes }, onError: () => {} }));
    return { url: `${app.origin}/api/webhooks/mediagen`, close: app.close };
  },
});

// The same suite with the app's own source: its ledger on SQLite (intent-first submits, reads and
// lists per owner, webhook events applied), as lib/mediagen.ts wires it.
describeRouteConformance({
  name: 'next-sample on the generation ledger (SQLite)',
  start: (options) => startStudio(options.client, (ledger) => ({ ...suiteRoutes(options), source: ledgerSource(ledger) })),
});

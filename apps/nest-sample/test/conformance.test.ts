// The monorepo's check of this app (create-mediagen leaves it out of the template: the suites
// are not published).

import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeRouteConformance, describeWebhookConformance, type RouteAdapterOptions } from '@mediagen/conformance';
import type { WebhookEvent } from '@mediagen/core';
import { MediaGenClient } from '@mediagen/core';
import type { GenerationSource, MediaGenWebhookContext } from '@mediagen/core/server';
import { MEDIAGEN_CLIENT, type NestPlatformRequest, OnGenerationEvent } from '@mediagen/nestjs';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppModule } from '../src/app.module.js';
import type { SampleMediaGenOptions } from '../src/mediagen-options.js';
import { GENERATION_SOURCE, LEDGER_CLIENT, MEDIAGEN_OPTIONS } from '../src/tokens.js';

interface Start {
  client: MediaGenClient;
  /** `MediaGenModule`'s options, given the app's own source (the ledger). */
  options(ledger: GenerationSource): SampleMediaGenOptions;
  onEvent: NonNullable<RouteAdapterOptions['webhook']>['onEvent'];
}

/**
 * The sample's own app (`AppModule`: its cookie user, its mounts at /api, its ledger on SQLite in a
 * directory of its own), with the suite's client in place of the app's (`MediaGenModule`'s and the
 * ledger's) and the suite's options in place of those the config gives (`MEDIAGEN_OPTIONS`); the
 * suite's `onEvent` is an `@OnGenerationEvent('*')` provider, as an app writes one.
 */
async function startSample({ client, options, onEvent }: Start) {
  @Injectable()
  class SuiteEvents {
    @OnGenerationEvent('*')
    handle(event: WebhookEvent, context: MediaGenWebhookContext<NestPlatformRequest>) {
      return onEvent?.(event, context);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'nest-sample-conformance-'));
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot({ DATA_DIR: dir })], providers: [SuiteEvents] })
    .overrideProvider(MEDIAGEN_CLIENT)
    .useValue(client)
    .overrideProvider(LEDGER_CLIENT)
    .useValue(client)
    .overrideProvider(MEDIAGEN_OPTIONS)
    .useFactory({ factory: options, inject: [GENERATION_SOURCE] })
    .compile();
  // As main.ts creates it.
  const app = moduleRef.createNestApplication({ rawBody: true, logger: false, forceCloseConnections: true });
  await app.listen(0, '127.0.0.1');
  return {
    origin: (await app.getUrl()).replace('[::1]', '127.0.0.1'),
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The suite's handler options as `MediaGenModule` takes them (the app mounts them at /api itself). */
function fromSuite({ client: _, basePath: __, webhook, onError, ...routes }: RouteAdapterOptions): SampleMediaGenOptions {
  const { onEvent: ___, ...receiver } = webhook ?? {};
  return { routes, webhook: receiver, onError };
}

describeRouteConformance({
  name: 'nest-sample',
  start: (suite) => startSample({ client: suite.client, options: () => fromSuite(suite), onEvent: suite.webhook?.onEvent }),
});

const unusedClient = new MediaGenClient({ apiKey: 'svc_live_unused', baseUrl: 'http://127.0.0.1:9' });
describeWebhookConformance({
  name: 'nest-sample',
  async start({ secrets, onEvent, maxBodyBytes }) {
    const app = await startSample({
      client: unusedClient,
      options: () => ({ routes: {}, webhook: { secrets, maxBodyBytes }, onError: () => {} }),
      onEvent,
    });
    return { url: `${app.origin}/api/webhooks/mediagen`, close: app.close };
  },
});

// The same suite with the app's own source: its ledger on SQLite (intent-first submits, reads and
// lists per owner, webhook events applied), as ledger.module.ts wires it.
describeRouteConformance({
  name: 'nest-sample on the generation ledger (SQLite)',
  start: (suite) =>
    startSample({
      client: suite.client,
      options: (ledger) => {
        const own = fromSuite(suite);
        return { ...own, routes: { ...own.routes, source: ledger } };
      },
      onEvent: suite.webhook?.onEvent,
    }),
});

import { join } from 'node:path';
import { FileMediaStore } from '@mediagen/core/node';
import type { GenerationSource } from '@mediagen/core/server';
import type { MediaGenModuleOptions, MediaGenModuleRoutesOptions, MediaGenModuleWebhookOptions } from '@mediagen/nestjs';
import type { FactoryProvider } from '@nestjs/common';
import type { SampleConfig } from './config.js';
import { GENERATION_SOURCE, MEDIAGEN_OPTIONS, SAMPLE_CONFIG } from './tokens.js';
import { currentUser } from './user.js';

/** What `MediaGenModule` serves with, less where: `AppModule` mounts the routes at /api and the receiver beside them. */
export interface SampleMediaGenOptions extends Omit<MediaGenModuleOptions, 'routes' | 'webhook'> {
  routes: Omit<MediaGenModuleRoutesOptions, 'basePath'>;
  webhook: Omit<MediaGenModuleWebhookOptions, 'path'>;
}

/**
 * The app's own: its key and secrets from the config; the browser's API (POST/GET
 * /api/generations, GET /api/generations/:id(/events), /api/models, /api/credits) answering only
 * the user of the cookie (user.ts); the ledger recording each submit and listing this user's
 * generations with working links. Tests put their own options under this token.
 */
export const mediagenOptions: FactoryProvider<SampleMediaGenOptions> = {
  provide: MEDIAGEN_OPTIONS,
  inject: [SAMPLE_CONFIG, GENERATION_SOURCE],
  useFactory: ({ apiKey, baseUrl, webhookSecrets, dataDir, publicUrl }: SampleConfig, source: GenerationSource) => ({
    apiKey,
    baseUrl,
    routes: {
      identify: (_request, req) => currentUser(req),
      source,
      // POST /api/uploads: a person's file, kept in <dataDir>/uploads and served to the service
      // under signed, expiring links (GET /api/uploads/:key); its `input` token goes in a submit.
      uploads: { store: new FileMediaStore({ directory: join(dataDir, 'uploads'), url: `${publicUrl}/api/uploads` }) },
    },
    webhook: { secrets: webhookSecrets },
  }),
};

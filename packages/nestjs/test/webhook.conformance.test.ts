import 'reflect-metadata';
import { describeWebhookConformance, type WebhookAdapterOptions } from '@mediagen/conformance';
import type { WebhookEvent } from '@mediagen/core';
import { Injectable } from '@nestjs/common';
import { MediaGenModule, OnGenerationEvent } from '../src';
import { type Platform, startApp } from './support/nest';

const PATH = 'api/webhooks/mediagen';

/** The suite's `onEvent` as an `@OnGenerationEvent('*')` provider, as an app would write it. */
async function start(platform: Platform, options: WebhookAdapterOptions) {
  @Injectable()
  class SuiteHandler {
    @OnGenerationEvent('*')
    handle(event: WebhookEvent) {
      return options.onEvent(event);
    }
  }
  const { origin, close } = await startApp({
    platform,
    imports: [
      MediaGenModule.forRoot({
        apiKey: 'svc_live_x',
        webhook: { path: PATH, secrets: options.secrets, maxBodyBytes: options.maxBodyBytes },
      }),
    ],
    providers: [SuiteHandler],
  });
  return { url: `${origin}/${PATH}`, close };
}

describeWebhookConformance({ name: 'nestjs on express', start: (options) => start('express', options) });
describeWebhookConformance({ name: 'nestjs on fastify', start: (options) => start('fastify', options) });

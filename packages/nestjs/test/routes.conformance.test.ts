import 'reflect-metadata';
import { describeRouteConformance, type RouteAdapterOptions } from '@mediagen/conformance';
import type { WebhookEvent } from '@mediagen/core';
import { Injectable } from '@nestjs/common';
import { MEDIAGEN_CLIENT, MediaGenModule, OnGenerationEvent } from '../src';
import { type Platform, startApp } from './support/nest';

/**
 * The suite's handler options as an app writes them in `forRoot` (`routes` at `/api`, the webhook
 * at `api/webhooks/mediagen` calling an `@OnGenerationEvent('*')` provider), with the suite's
 * client in place of the module's (Nest's `overrideProvider`).
 */
async function start(platform: Platform, { client, basePath, webhook, onError, ...routes }: RouteAdapterOptions) {
  const { onEvent, ...receiver } = webhook ?? {};
  @Injectable()
  class SuiteHandler {
    @OnGenerationEvent('*')
    handle(event: WebhookEvent) {
      return onEvent?.(event, undefined as never);
    }
  }
  const { origin, close } = await startApp({
    platform,
    imports: [
      MediaGenModule.forRoot({
        apiKey: 'svc_live_unused',
        routes: { basePath, ...routes },
        ...(webhook && { webhook: { path: `${basePath}/webhooks/mediagen`, ...receiver } }),
        ...(onError && { onError }),
      }),
    ],
    providers: [SuiteHandler],
    overrides: [[MEDIAGEN_CLIENT, client]],
  });
  return { origin, close };
}

describeRouteConformance({ name: 'nestjs on express', start: (options) => start('express', options) });
describeRouteConformance({ name: 'nestjs on fastify', start: (options) => start('fastify', options) });

import { MediaGenClient } from '@mediagen/core';
import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { GenerationEventHandlers } from './event-handlers';
import {
  type MEDIAGEN_ASYNC_OPTIONS_TYPE,
  MEDIAGEN_MODULE_OPTIONS,
  type MEDIAGEN_OPTIONS_TYPE,
  MediaGenConfigurableModule,
} from './module-definition';
import type { MediaGenModuleOptions } from './options';
import { MEDIAGEN_CLIENT, MEDIAGEN_WEBHOOK_ROUTE } from './tokens';
import { configureWebhookRoute, createWebhookController } from './webhook-controller';
import { MediaGenWebhookReceiver } from './webhook-receiver';

/**
 * `MediaGenModule.forRoot({ apiKey, baseUrl, webhook: { path, secrets } })` or
 * `MediaGenModule.forRootAsync({ imports, inject, useFactory })`: a `MediaGenClient`
 * (injectable by type or with `@InjectMediaGen()`) and, with `webhook`, a receiver route that
 * calls the app's `@OnGenerationEvent` methods. Import it once (in the root module, with
 * `isGlobal: true`, or re-exported from a module of your own): each import is a new client and
 * a new route.
 */
@Module({})
export class MediaGenModule extends MediaGenConfigurableModule {
  static override forRoot(options: typeof MEDIAGEN_OPTIONS_TYPE): DynamicModule {
    return withParts({ ...MediaGenConfigurableModule.forRoot(options), module: MediaGenModule }, options);
  }

  static override forRootAsync(options: typeof MEDIAGEN_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withParts({ ...MediaGenConfigurableModule.forRootAsync(options), module: MediaGenModule });
  }
}

/** Adds what every import gets: its client, its handler discovery, its own webhook controller. */
function withParts(definition: DynamicModule, known?: MediaGenModuleOptions): DynamicModule {
  const controller: Type = createWebhookController();
  // Options known now (forRoot): set up the route before Nest scans it, so guard classes in
  // `decorators` are built like any other. Async options arrive later, while Nest builds the module.
  if (known) configureWebhookRoute(controller, known.webhook, false);
  const providers: Provider[] = [
    {
      provide: MEDIAGEN_CLIENT,
      useFactory: (options: MediaGenModuleOptions) => new MediaGenClient(clientOptions(options)),
      inject: [MEDIAGEN_MODULE_OPTIONS],
    },
    { provide: MediaGenClient, useExisting: MEDIAGEN_CLIENT },
    {
      provide: MEDIAGEN_WEBHOOK_ROUTE,
      useFactory: (options: MediaGenModuleOptions) => {
        if (!known) configureWebhookRoute(controller, options.webhook, true);
        return true;
      },
      inject: [MEDIAGEN_MODULE_OPTIONS],
    },
    GenerationEventHandlers,
    MediaGenWebhookReceiver,
  ];
  return {
    ...definition,
    imports: [...(definition.imports ?? []), DiscoveryModule],
    controllers: [...(definition.controllers ?? []), controller],
    providers: [...(definition.providers ?? []), ...providers],
    exports: [...(definition.exports ?? []), MEDIAGEN_CLIENT, MediaGenClient],
  };
}

function clientOptions(options: MediaGenModuleOptions): Omit<MediaGenModuleOptions, 'webhook'> {
  const { webhook: _webhook, ...client } = options;
  return client;
}

import { MediaGenClient } from '@mediagen/core';
import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { GenerationEventHandlers } from './event-handlers';
import { MediaGenHttp } from './mediagen-http';
import {
  type MEDIAGEN_ASYNC_OPTIONS_TYPE,
  MEDIAGEN_MODULE_OPTIONS,
  type MEDIAGEN_OPTIONS_TYPE,
  MediaGenConfigurableModule,
} from './module-definition';
import type { MediaGenModuleOptions } from './options';
import { configureControllers, createControllers } from './route-controllers';
import { MEDIAGEN_CLIENT, MEDIAGEN_ROUTES_CONFIGURED } from './tokens';

/**
 * `MediaGenModule.forRoot({ apiKey, baseUrl, routes: { basePath, identify, source }, webhook: { path, secrets } })`
 * or `MediaGenModule.forRootAsync({ imports, inject, useFactory })`: a `MediaGenClient`
 * (injectable by type or with `@InjectMediaGen()`); with `routes`, the browser-facing JSON
 * routes; with `webhook`, a receiver route that calls the app's `@OnGenerationEvent` methods.
 * Both are core's one handler (`createMediaGenHandler`). Import it once (in the root module,
 * with `isGlobal: true`, or re-exported from a module of your own): each import is a new client
 * and new routes.
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

/** Adds what every import gets: its client, its handler discovery, its own controllers. */
function withParts(definition: DynamicModule, known?: MediaGenModuleOptions): DynamicModule {
  const controllers = createControllers();
  // Options known now (forRoot): set up the routes before Nest scans them, so guard classes in
  // `decorators` are built like any other. Async options arrive later, while Nest builds the module.
  if (known) configureControllers(controllers, known, false);
  const providers: Provider[] = [
    {
      provide: MEDIAGEN_CLIENT,
      useFactory: (options: MediaGenModuleOptions) => new MediaGenClient(clientOptions(options)),
      inject: [MEDIAGEN_MODULE_OPTIONS],
    },
    { provide: MediaGenClient, useExisting: MEDIAGEN_CLIENT },
    {
      provide: MEDIAGEN_ROUTES_CONFIGURED,
      useFactory: (options: MediaGenModuleOptions) => {
        if (!known) configureControllers(controllers, options, true);
        return true;
      },
      inject: [MEDIAGEN_MODULE_OPTIONS],
    },
    GenerationEventHandlers,
    MediaGenHttp,
  ];
  return {
    ...definition,
    imports: [...(definition.imports ?? []), DiscoveryModule],
    controllers: [...(definition.controllers ?? []), controllers.webhook, controllers.routes],
    providers: [...(definition.providers ?? []), ...providers],
    exports: [...(definition.exports ?? []), MEDIAGEN_CLIENT, MediaGenClient],
  };
}

function clientOptions(options: MediaGenModuleOptions): Omit<MediaGenModuleOptions, 'webhook' | 'routes' | 'onError'> {
  const { webhook: _webhook, routes: _routes, onError: _onError, ...client } = options;
  return client;
}

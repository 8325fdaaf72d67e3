import { MediaGenModule } from '@mediagen/nestjs';
import { type DynamicModule, type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { readConfig, type SampleConfig } from './config.js';
import { storeSource } from './generation-source.js';
import { GenerationWebhooks } from './generation-webhooks.js';
import { PageController } from './page.controller.js';
import { Poller } from './poller.js';
import { GenerationStore } from './store.js';
import { SAMPLE_CONFIG } from './tokens.js';
import { currentUser, userCookie } from './user.js';

const WEBHOOK_PATH = 'api/webhooks/mediagen';

/** The SQLite store, one for the app: the routes, the webhook handler and the poller share it. */
@Module({
  providers: [
    { provide: SAMPLE_CONFIG, useFactory: readConfig, inject: [ConfigService] },
    { provide: GenerationStore, useFactory: (sample: SampleConfig) => new GenerationStore(sample.databaseFile), inject: [SAMPLE_CONFIG] },
  ],
  exports: [SAMPLE_CONFIG, GenerationStore],
})
class StoreModule {}

@Module({})
export class AppModule implements NestModule {
  /** `settings` adds to (and wins over) the environment: tests use it; `main.ts` passes none. */
  static forRoot(settings: Record<string, string> = {}): DynamicModule {
    const config = ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => settings] });
    return {
      module: AppModule,
      imports: [
        config,
        StoreModule,
        MediaGenModule.forRootAsync({
          imports: [StoreModule],
          inject: [SAMPLE_CONFIG, GenerationStore],
          useFactory: ({ apiKey, baseUrl, webhookSecrets }: SampleConfig, store: GenerationStore) => ({
            apiKey,
            baseUrl,
            // The browser's API: POST/GET /api/generations, GET /api/generations/:id(/events),
            // /api/models, /api/credits; each answers only the user of the cookie (user.ts).
            routes: { basePath: 'api', identify: (_request, req) => currentUser(req), source: storeSource(store) },
            webhook: { path: WEBHOOK_PATH, secrets: webhookSecrets },
          }),
        }),
      ],
      controllers: [PageController],
      providers: [GenerationWebhooks, Poller],
    };
  }

  /** Every request but the service's deliveries comes from a browser: give it its user. */
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(userCookie)
      .exclude({ path: WEBHOOK_PATH, method: RequestMethod.POST })
      .forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}

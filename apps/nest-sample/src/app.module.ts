import { type GenerationSource, MediaGenModule } from '@mediagen/nestjs';
import { type DynamicModule, type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import type { SampleConfig } from './config.js';
import { GenerationWebhooks } from './generation-webhooks.js';
import { LedgerModule } from './ledger.module.js';
import { PageController } from './page.controller.js';
import { GENERATION_SOURCE, SAMPLE_CONFIG } from './tokens.js';
import { currentUser, userCookie } from './user.js';

const WEBHOOK_PATH = 'api/webhooks/mediagen';

@Module({})
export class AppModule implements NestModule {
  /** `settings` adds to (and wins over) the environment: tests use it; `main.ts` passes none. */
  static forRoot(settings: Record<string, string> = {}): DynamicModule {
    const config = ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => settings] });
    return {
      module: AppModule,
      imports: [
        config,
        LedgerModule,
        MediaGenModule.forRootAsync({
          imports: [LedgerModule],
          inject: [SAMPLE_CONFIG, GENERATION_SOURCE],
          useFactory: ({ apiKey, baseUrl, webhookSecrets }: SampleConfig, source: GenerationSource) => ({
            apiKey,
            baseUrl,
            // The browser's API: POST/GET /api/generations, GET /api/generations/:id(/events),
            // /api/models, /api/credits; each answers only the user of the cookie (user.ts).
            // The ledger records each submit and lists this user's generations with working links.
            routes: { basePath: 'api', identify: (_request, req) => currentUser(req), source },
            webhook: { path: WEBHOOK_PATH, secrets: webhookSecrets },
          }),
        }),
      ],
      controllers: [PageController],
      providers: [GenerationWebhooks],
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

import { MediaGenModule } from '@mediagen/nestjs';
import { type DynamicModule, type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { GenerationWebhooks } from './generation-webhooks.js';
import { LedgerModule } from './ledger.module.js';
import { mediagenOptions, type SampleMediaGenOptions } from './mediagen-options.js';
import { PageController } from './page.controller.js';
import { MEDIAGEN_OPTIONS } from './tokens.js';
import { userCookie } from './user.js';

const API_PATH = 'api';
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
          provideInjectionTokensFrom: [mediagenOptions],
          inject: [MEDIAGEN_OPTIONS],
          // Whatever the options, the app mounts them: the browser's API under /api, the receiver at /api/webhooks/mediagen.
          useFactory: ({ routes, webhook, ...client }: SampleMediaGenOptions) => ({
            ...client,
            routes: { ...routes, basePath: API_PATH },
            webhook: { ...webhook, path: WEBHOOK_PATH },
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

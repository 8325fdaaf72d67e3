import { MediaGenExceptionFilter, MediaGenModule } from '@mediagen/nestjs';
import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { APP_FILTER } from '@nestjs/core';
import { ApiController } from './api.controller.js';
import { readConfig, type SampleConfig } from './config.js';
import { GenerationEvents } from './generation-events.js';
import { PageController } from './page.controller.js';
import { Poller } from './poller.js';
import { GenerationStore } from './store.js';
import { SAMPLE_CONFIG } from './tokens.js';

@Module({})
export class AppModule {
  /** `settings` adds to (and wins over) the environment: tests use it; `main.ts` passes none. */
  static forRoot(settings: Record<string, string> = {}): DynamicModule {
    const config = ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => settings] });
    return {
      module: AppModule,
      imports: [
        config,
        MediaGenModule.forRootAsync({
          inject: [ConfigService],
          useFactory: (configService: ConfigService) => {
            const { apiKey, baseUrl, webhookSecrets } = readConfig(configService);
            return { apiKey, baseUrl, webhook: { path: 'api/webhooks/mediagen', secrets: webhookSecrets } };
          },
        }),
      ],
      controllers: [ApiController, PageController],
      providers: [
        { provide: SAMPLE_CONFIG, useFactory: readConfig, inject: [ConfigService] },
        {
          provide: GenerationStore,
          useFactory: (sample: SampleConfig) => new GenerationStore(sample.databaseFile),
          inject: [SAMPLE_CONFIG],
        },
        GenerationEvents,
        Poller,
        // SDK errors from the API routes answer with the service's status and error body.
        { provide: APP_FILTER, useClass: MediaGenExceptionFilter },
      ],
    };
  }
}

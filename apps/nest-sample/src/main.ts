import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import type { SampleConfig } from './config.js';
import { SAMPLE_CONFIG } from './tokens.js';

// rawBody: the webhook signature covers the exact bytes sent; @mediagen/nestjs verifies req.rawBody.
const app = await NestFactory.create(AppModule.forRoot(), { rawBody: true });
app.enableShutdownHooks();
const { port, baseUrl } = app.get<SampleConfig>(SAMPLE_CONFIG);
await app.listen(port, '127.0.0.1');
console.log(`nest-sample on http://127.0.0.1:${port} (MediaGen at ${baseUrl})`);
console.log(`webhook receiver: POST http://127.0.0.1:${port}/api/webhooks/mediagen`);

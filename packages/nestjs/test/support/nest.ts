import 'reflect-metadata';
import { createServer } from 'node:net';
import type { DynamicModule, INestApplication, LoggerService, ModuleMetadata } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';

export type Platform = 'express' | 'fastify';
export const PLATFORMS: Platform[] = ['express', 'fastify'];

export interface AppSetup extends Omit<ModuleMetadata, 'imports'> {
  platform: Platform;
  imports: ModuleMetadata['imports'];
  /** Nest's `rawBody` option. Default true. */
  rawBody?: boolean;
  bodyParser?: boolean;
  /** Port to listen on. Default: any free one. */
  port?: number;
  /** Runs on the app before it starts (global prefix, global filters, body limits). */
  configure?(app: INestApplication): void;
  /** Nest's `logger` option. Default false (silent). */
  logger?: LoggerService | false;
  /** Providers replaced by these values, as Nest's testing module does (`overrideProvider`). */
  overrides?: ReadonlyArray<readonly [token: unknown, value: unknown]>;
}

/** A Nest app from a testing module, served by the chosen platform on 127.0.0.1. */
export async function startApp(setup: AppSetup): Promise<{ app: INestApplication; origin: string; close(): Promise<void> }> {
  const { platform, rawBody = true, bodyParser, port = 0, configure, overrides = [], logger = false, ...metadata } = setup;
  let builder = Test.createTestingModule(metadata as ModuleMetadata);
  for (const [token, value] of overrides) builder = builder.overrideProvider(token).useValue(value);
  const moduleRef = await builder.compile();
  const options = { rawBody, logger, ...(bodyParser === false && { bodyParser: false }) };
  const app =
    platform === 'fastify' ? moduleRef.createNestApplication(new FastifyAdapter(), options) : moduleRef.createNestApplication(options);
  configure?.(app);
  try {
    await app.listen(port, '127.0.0.1');
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
  const origin = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, origin, close: () => app.close() };
}

/** A free port now (the emulator needs the app's webhook URL before the app exists). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export type ModuleFactory = (options: Parameters<typeof import('../../src').MediaGenModule.forRoot>[0]) => DynamicModule;

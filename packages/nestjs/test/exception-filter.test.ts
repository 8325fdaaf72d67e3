import 'reflect-metadata';
import { MediaGenClient } from '@mediagen/core';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { Controller, Get, Param, Post, UseFilters } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InjectMediaGen, MediaGenExceptionFilter, MediaGenModule } from '../src';
import { PLATFORMS, startApp } from './support/nest';

const KEY = 'svc_live_nest_filter';

@Controller('gen')
class GenerationsController {
  constructor(
    private readonly byType: MediaGenClient,
    @InjectMediaGen() private readonly byToken: MediaGenClient,
  ) {}

  @Get('same')
  same() {
    return { same: this.byType === this.byToken };
  }

  @Get(':id')
  get(@Param('id') id: string) {
    return this.byToken.generations.get(id);
  }

  @Post('blocked')
  blocked() {
    return this.byType.generations.create({ model: 'image-fast', prompt: 'x [[blocked]]' });
  }

  @Post('local')
  local() {
    // Refused client-side (ParamsValidationError) before any request.
    return this.byType.generations.create({ model: 'image-fast', prompt: 'x', number_results: 99 });
  }

  @Get('boom/plain')
  plain() {
    throw new Error('not an SDK error');
  }
}

@Controller('scoped')
@UseFilters(MediaGenExceptionFilter)
class ScopedController {
  constructor(private readonly client: MediaGenClient) {}
  @Get(':id')
  get(@Param('id') id: string) {
    return this.client.generations.get(id);
  }
}

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, config: { accounts: [{ id: 'acct_f', tier: 'pro', balance: 1_000, keys: [{ key: KEY }] }] } });
});
afterAll(async () => emulator?.close());
const apps: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

for (const platform of PLATFORMS) {
  describe(`${platform}: MediaGenExceptionFilter`, () => {
    async function start(global: boolean) {
      const started = await startApp({
        platform,
        imports: [MediaGenModule.forRoot({ apiKey: KEY, baseUrl: emulator.url })],
        controllers: [GenerationsController, ScopedController],
        providers: global ? [{ provide: APP_FILTER, useClass: MediaGenExceptionFilter }] : [],
      });
      apps.push(started);
      return started.origin;
    }

    it('the client is one instance, by type and by @InjectMediaGen()', async () => {
      const origin = await start(false);
      expect(await (await fetch(`${origin}/gen/same`)).json()).toEqual({ same: true });
    });

    it('turns an SDK error into the service status and error body, with request_id', async () => {
      const origin = await start(true);
      const res = await fetch(`${origin}/gen/00000000-0000-4000-8000-000000000000`);
      expect(res.status).toBe(404);
      const body = await res.json();
      expect(body).toMatchObject({
        error: 'NOT_FOUND',
        message: expect.any(String),
        next: expect.anything(),
        request_id: expect.stringMatching(/^req_/),
      });
      expect(res.headers.get('x-request-id')).toBe(body.request_id);

      const blocked = await fetch(`${origin}/gen/blocked`, { method: 'POST' });
      expect(blocked.status).toBe(400);
      expect(await blocked.json()).toMatchObject({ error: 'CONTENT_POLICY_VIOLATION', request_id: expect.stringMatching(/^req_/) });

      const local = await fetch(`${origin}/gen/local`, { method: 'POST' });
      expect(local.status).toBe(422);
      expect(await local.json()).toMatchObject({ error: 'PARAMS_INVALID', details: { field: 'number_results' } });
    });

    it('leaves other errors to Nest, and the API key never reaches the answer', async () => {
      const origin = await start(true);
      const res = await fetch(`${origin}/gen/boom/plain`);
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(text).toContain('Internal server error');
      expect(text).not.toContain(KEY);
    });

    it('works scoped to a controller with @UseFilters', async () => {
      const origin = await start(false);
      expect((await fetch(`${origin}/scoped/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
      // Without the filter, Nest answers its own 500.
      expect((await fetch(`${origin}/gen/00000000-0000-4000-8000-000000000000`)).status).toBe(500);
    });
  });
}

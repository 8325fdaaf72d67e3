import 'reflect-metadata';
import { MediaGenClient, NotFoundError, ServerError } from '@mediagen/core';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { Controller, Get, Injectable, Param, Post, UseFilters } from '@nestjs/common';
import { APP_FILTER, ExternalContextCreator } from '@nestjs/core';
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
    // Not an SDK error, and its message names the key (as a careless log line would).
    throw new Error(`upstream call with Authorization: Bearer ${KEY} failed`);
  }

  @Get('boom/sdk')
  sdk() {
    // An SDK error whose internals hold the key: the raw body a proxy echoed, the cause, a field.
    throw Object.assign(
      new ServerError('The provider is down.', {
        status: 503,
        code: 'PROVIDER_DOWN',
        next: 'Retry after 60 s.',
        requestId: 'req_leak',
        retryable: true,
        body: { error: 'PROVIDER_DOWN', echoed_headers: { authorization: `Bearer ${KEY}` }, debug: KEY },
        cause: new Error(`socket to the provider closed (Bearer ${KEY})`),
      }),
      { apiKey: KEY },
    );
  }
}

/** A provider whose method Nest runs outside HTTP (as microservices, WebSockets or GraphQL do) with the app's filters. */
@Injectable()
class Jobs {
  constructor(private readonly client: MediaGenClient) {}
  lookup(...args: unknown[]) {
    return this.client.generations.get(String(args[0]));
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
    async function launch(global: boolean) {
      const started = await startApp({
        platform,
        imports: [MediaGenModule.forRoot({ apiKey: KEY, baseUrl: emulator.url })],
        controllers: [GenerationsController, ScopedController],
        providers: [Jobs, ...(global ? [{ provide: APP_FILTER, useClass: MediaGenExceptionFilter }] : [])],
      });
      apps.push(started);
      return started;
    }
    const start = async (global: boolean) => (await launch(global)).origin;

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

      // An SDK error carrying the key in its raw body, cause and own fields: answered by the
      // filter (its status, code and request_id), without any of them.
      const sdk = await fetch(`${origin}/gen/boom/sdk`);
      expect(sdk.status).toBe(503);
      const answer = await sdk.text();
      expect(JSON.parse(answer)).toMatchObject({ error: 'PROVIDER_DOWN', request_id: 'req_leak' });
      expect(answer).not.toContain(KEY);
      expect(JSON.stringify([...sdk.headers])).not.toContain(KEY);
    });

    for (const type of ['rpc', 'graphql'] as const) {
      it(`outside HTTP (${type}), an SDK error goes on untouched`, async () => {
        const { app } = await launch(true);
        const jobs = app.get(Jobs);
        const run = app
          .get(ExternalContextCreator)
          .create(jobs, jobs.lookup, 'lookup', undefined, undefined, undefined, undefined, { filters: true }, type);
        const thrown = await run('00000000-0000-4000-8000-000000000000').then(
          () => undefined,
          (error: unknown) => error,
        );
        // The SDK's own error, not a TypeError from writing an HTTP answer to a non-HTTP context.
        expect(thrown).toBeInstanceOf(NotFoundError);
        expect(thrown).toMatchObject({ code: 'NOT_FOUND', status: 404 });
      });
    }

    it('works scoped to a controller with @UseFilters', async () => {
      const origin = await start(false);
      expect((await fetch(`${origin}/scoped/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
      // Without the filter, Nest answers its own 500.
      expect((await fetch(`${origin}/gen/00000000-0000-4000-8000-000000000000`)).status).toBe(500);
    });
  });
}

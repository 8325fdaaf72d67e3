import 'reflect-metadata';
import { deliver, makePayload } from '@mediagen/conformance';
import { MediaGenClient } from '@mediagen/core';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import {
  type ArgumentsHost,
  Catch,
  type DynamicModule,
  type ExceptionFilter,
  type INestApplication,
  Injectable,
  Module,
} from '@nestjs/common';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InjectMediaGen, MEDIAGEN_CLIENT, MediaGenModule } from '../src';
import { handlerProviders, ON_COMPLETED, ON_FAILED, Recorder } from './support/handlers';
import { freePort, PLATFORMS, type Platform, startApp } from './support/nest';

const KEY = 'svc_live_nest_test';
const SECRET = 'whsec_nest_test';
const PATH = 'webhooks/mediagen';

/** Settings the async variant reads, as a config module would give them. */
@Injectable()
class Settings {
  baseUrl = '';
}

function settingsModule(baseUrl: string): DynamicModule {
  @Module({ providers: [Settings], exports: [Settings] })
  class SettingsModule {}
  return {
    module: SettingsModule,
    providers: [{ provide: Settings, useValue: Object.assign(new Settings(), { baseUrl }) }],
    exports: [Settings],
  };
}

const variants = {
  forRoot: (baseUrl: string) => MediaGenModule.forRoot({ apiKey: KEY, baseUrl, webhook: { path: PATH, secrets: [SECRET] } }),
  forRootAsync: (baseUrl: string) =>
    MediaGenModule.forRootAsync({
      imports: [settingsModule(baseUrl)],
      inject: [Settings],
      useFactory: async (settings: Settings) => ({ apiKey: KEY, baseUrl: settings.baseUrl, webhook: { path: PATH, secrets: SECRET } }),
    }),
};

/** A provider of the app that takes the client both ways. */
@Injectable()
class ClientUser {
  constructor(
    readonly byType: MediaGenClient,
    @InjectMediaGen() readonly byToken: MediaGenClient,
  ) {}
}

/** A Sentry-like global filter: catches everything and answers 200. It must see nothing from the webhook. */
@Catch()
class SwallowEverythingFilter implements ExceptionFilter {
  static seen: unknown[] = [];
  catch(error: unknown, host: ArgumentsHost) {
    SwallowEverythingFilter.seen.push(error);
    const res = host.switchToHttp().getResponse();
    if (typeof res.code === 'function') res.code(200).send({ swallowed: true });
    else res.status(200).json({ swallowed: true });
  }
}

for (const platform of PLATFORMS) {
  for (const [variant, module] of Object.entries(variants)) {
    describe(`${platform}, ${variant}: a real emulator delivering to @OnGenerationEvent handlers`, () => {
      const recorder = new Recorder();
      let emulator: RunningEmulator;
      let close: () => Promise<void>;
      let origin: string;
      let client: MediaGenClient;
      let app: INestApplication;
      const url = () => `${origin}/${PATH}`;

      beforeAll(async () => {
        const port = await freePort();
        emulator = await startEmulator({
          port: 0,
          config: {
            timeScale: 0.005,
            accounts: [
              {
                id: 'acct_nest',
                tier: 'pro',
                balance: 15_000,
                keys: [{ key: KEY }],
                webhooks: [{ url: `http://127.0.0.1:${port}/${PATH}`, secret: SECRET, enabled: true }],
              },
            ],
          },
        });
        const started = await startApp({
          platform: platform as Platform,
          port,
          imports: [module(emulator.url)],
          providers: [...handlerProviders(recorder), ClientUser],
          configure: (app) => app.useGlobalFilters(new SwallowEverythingFilter()),
        });
        ({ origin, close } = started);
        app = started.app;
        client = started.app.get(MediaGenClient);
      });
      afterAll(async () => {
        await close?.();
        await emulator?.close();
      });
      beforeEach(() => {
        recorder.reset();
        SwallowEverythingFilter.seen = [];
      });

      it('a completed generation reaches every matching handler once, and wait() resolves on it', async () => {
        const submitted = await client.generations.create({ model: 'image-fast', prompt: 'a lighthouse' });
        const done = await client.generations.wait(submitted.generation_id);
        expect(done.status).toBe('completed');
        await expect.poll(() => recorder.ran(submitted.generation_id)).toEqual(ON_COMPLETED);
        // The emulator logs the attempt once it has read the answer, which can be just after the handlers ran.
        const deliveries = async () =>
          (
            (await (await fetch(`${emulator.url}/__emulator/deliveries?generation_id=${submitted.generation_id}`)).json()) as {
              deliveries: Array<{ attempt: number; status: number | null }>;
            }
          ).deliveries.map((d) => [d.attempt, d.status]);
        await expect.poll(deliveries).toEqual([[1, 200]]);
        const event = recorder.calls.find((c) => c.handler === 'completed')!.event;
        expect(event).toMatchObject({
          type: 'generation.completed',
          data: { generation_id: submitted.generation_id, status: 'completed' },
        });
      });

      it('a failed generation reaches the failed, "*" and multi-type handlers only', async () => {
        const submitted = await client.generations.create({ model: 'image-fast', prompt: 'x [[fail:model_unavailable]]' });
        await expect.poll(() => recorder.ran(submitted.generation_id)).toEqual(ON_FAILED);
        expect(recorder.calls[0]!.event.data).toMatchObject({ status: 'failed', error_code: 'model_unavailable' });
      });

      it('duplicate and concurrent deliveries run each handler exactly once', async () => {
        recorder.behaviour = () => new Promise((resolve) => setTimeout(resolve, 100));
        const payload = makePayload();
        const concurrent = await Promise.all(Array.from({ length: 6 }, () => deliver(url(), payload, { secret: SECRET })));
        const later = await deliver(url(), payload, { secret: SECRET });
        for (const res of [...concurrent, later]) expect(res.status).toBeLessThan(300);
        expect(recorder.ran(payload.generation_id)).toEqual(ON_COMPLETED);
      });

      it("verified events are published to the client's events (what wait() listens to); forged ones are not", async () => {
        const payload = makePayload();
        const seen: string[] = [];
        const events = client.events;
        if (!events) throw new Error('the webhook receiver did not install events on the client');
        const unsubscribe = events.subscribe(payload.generation_id, (event) => void seen.push(event.type));
        try {
          await deliver(url(), payload, { secret: 'whsec_someone_else' });
          await deliver(url(), payload, { secret: SECRET });
          await expect.poll(() => seen).toEqual(['generation.completed']);
        } finally {
          unsubscribe();
        }
      });

      it('a bad signature gets 401 and runs nothing', async () => {
        const payload = makePayload();
        const res = await deliver(url(), payload, { secret: 'whsec_someone_else' });
        expect(res.status).toBe(401);
        expect(await res.json()).toMatchObject({ error: 'WEBHOOK_SIGNATURE_INVALID' });
        expect(recorder.calls).toEqual([]);
        expect(SwallowEverythingFilter.seen).toEqual([]);
      });

      it('a throwing handler gets 5xx; the retry runs every handler of the event again (core de-duplicates per event)', async () => {
        let failures = 1;
        recorder.behaviour = (handler) => {
          if (handler === 'completed-2' && failures-- > 0) throw new Error('database down');
        };
        const payload = makePayload();
        const first = await deliver(url(), payload, { secret: SECRET });
        expect(first.status).toBe(500);
        const firstRun = ON_COMPLETED.filter((h) => h !== 'completed-2');
        expect(recorder.ran(payload.generation_id)).toEqual(firstRun);
        const retry = await deliver(url(), payload, { secret: SECRET });
        expect(retry.status).toBe(200);
        expect(recorder.ran(payload.generation_id)).toEqual([...firstRun, ...ON_COMPLETED].sort());
        // Handled now: a later duplicate runs nothing.
        expect((await deliver(url(), payload, { secret: SECRET })).status).toBe(200);
        expect(recorder.ran(payload.generation_id)).toHaveLength(firstRun.length + ON_COMPLETED.length);
        // The global filter never saw the handler's error, and did not turn the 5xx into its 200.
        expect(SwallowEverythingFilter.seen).toEqual([]);
      });

      it('the client is injectable by type and by token, one instance', async () => {
        const user = app.get(ClientUser);
        expect(user.byType).toBeInstanceOf(MediaGenClient);
        expect(user.byToken).toBeInstanceOf(MediaGenClient);
        expect(user.byToken).toBe(user.byType);
        expect(app.get(MEDIAGEN_CLIENT)).toBe(user.byType);
        expect(client).toBe(user.byType);
        expect((await user.byToken.credits.get()).balance).toBeGreaterThan(0);
      });
    });
  }
}

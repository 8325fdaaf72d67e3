import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { deliver, makePayload } from '@mediagen/conformance';
import { RedisDedupeStore } from '@mediagen/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaGenModule } from '../src';
import { handlerProviders, ON_COMPLETED, Recorder } from './support/handlers';
import { type Platform, startApp } from './support/nest';

const SECRET = 'whsec_nest_instances';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PATH = 'webhooks/mediagen';

/**
 * Two instances of one app (one on each platform) behind one webhook URL: de-duplication is
 * core's, in the `webhook.dedupe` store they share (real Redis), not a map in either process.
 */
describe('two instances sharing a RedisDedupeStore', () => {
  const prefix = `mediagen-test:nest:${randomUUID()}:`;
  const instances: Array<{ recorder: Recorder; store: RedisDedupeStore; url: string; close(): Promise<void> }> = [];

  beforeAll(async () => {
    for (const platform of ['express', 'fastify'] as Platform[]) {
      const recorder = new Recorder();
      const store = new RedisDedupeStore({ redis: REDIS_URL, prefix });
      const { origin, close } = await startApp({
        platform,
        imports: [MediaGenModule.forRoot({ apiKey: 'svc_live_x', webhook: { path: PATH, secrets: SECRET, dedupe: store } })],
        providers: handlerProviders(recorder),
      });
      instances.push({ recorder, store, url: `${origin}/${PATH}`, close });
    }
  });
  afterAll(async () => {
    for (const { close, store } of instances.splice(0)) {
      await close();
      await store.close();
    }
  });

  it('an event handled on one instance is a duplicate on the other: its handlers run once in all', async () => {
    const [a, b] = instances;
    const payload = makePayload();
    expect((await deliver(a!.url, payload, { secret: SECRET })).status).toBe(200);
    expect((await deliver(b!.url, payload, { secret: SECRET })).status).toBe(200);
    expect(a!.recorder.ran(payload.generation_id)).toEqual(ON_COMPLETED);
    expect(b!.recorder.ran(payload.generation_id)).toEqual([]);
  });

  it('a delivery that failed on one instance is retried on the other, which runs the event', async () => {
    const [a, b] = instances;
    a!.recorder.behaviour = (handler) => {
      if (handler === 'completed-2') throw new Error('database down');
    };
    const payload = makePayload();
    expect((await deliver(a!.url, payload, { secret: SECRET })).status).toBe(500);
    expect((await deliver(b!.url, payload, { secret: SECRET })).status).toBe(200);
    expect(b!.recorder.ran(payload.generation_id)).toEqual(ON_COMPLETED);
    // Handled now, for both.
    expect((await deliver(a!.url, payload, { secret: SECRET })).status).toBe(200);
    expect(a!.recorder.ran(payload.generation_id)).not.toContain('completed-2');
  });
});

import 'reflect-metadata';
import { deliver, makePayload } from '@mediagen/conformance';
import type { WebhookEvent } from '@mediagen/core';
import type { MediaGenWebhookContext as WebhookContext } from '@mediagen/core/server';
import { Injectable } from '@nestjs/common';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MediaGenModule, OnGenerationEvent } from '../src';
import { PLATFORMS, startApp } from './support/nest';

const SECRET = 'whsec_nest_acknowledge';
const PATH = 'webhooks/mediagen';

/** Explicit signals between the two handlers of one event: no timer decides who goes first. */
class Script {
  /** What the queueing handler does after its acknowledge. */
  queued!: Promise<void>;
  #queuedNow!: () => void;
  /** Whether the writing handler fails this time. */
  failWrite = false;
  runs: string[] = [];

  reset(): void {
    this.runs = [];
    this.failWrite = false;
    this.queued = new Promise((resolve) => (this.#queuedNow = resolve));
  }

  markQueued(): void {
    this.#queuedNow();
  }
}

/** One handler hands the event to a queue and acknowledges; it is quick and always succeeds. */
@Injectable()
class QueueHandler {
  constructor(private readonly script: Script) {}

  @OnGenerationEvent('generation.completed')
  enqueue(event: WebhookEvent, context: WebhookContext) {
    this.script.runs.push(`queue:${event.data.generation_id}`);
    context.acknowledge();
    this.script.markQueued();
  }
}

/** Another handler of the same event writes to a database, which is down the first time. */
@Injectable()
class WriteHandler {
  constructor(private readonly script: Script) {}

  @OnGenerationEvent('generation.completed')
  async write(event: WebhookEvent) {
    // Fails only once the sibling handler has acknowledged: the ack must not commit this one's outcome.
    await this.script.queued;
    this.script.runs.push(`write:${event.data.generation_id}`);
    if (this.script.failWrite) throw new Error('database down');
  }
}

for (const platform of PLATFORMS) {
  describe(`${platform}: one handler's context.acknowledge() does not commit the event for its siblings`, () => {
    const script = new Script();
    let url: string;
    let close: () => Promise<void>;

    beforeAll(async () => {
      const started = await startApp({
        platform,
        imports: [MediaGenModule.forRoot({ apiKey: 'svc_live_ack', webhook: { path: PATH, secrets: SECRET } })],
        providers: [{ provide: Script, useValue: script }, QueueHandler, WriteHandler],
      });
      url = `${started.origin}/${PATH}`;
      close = started.close;
    });
    afterAll(async () => {
      await close?.();
    });
    beforeEach(() => script.reset());

    it('a sibling that fails after the acknowledge gets the delivery 5xx, and the retry runs the event again', async () => {
      script.failWrite = true;
      const payload = makePayload();
      const first = await deliver(url, payload, { secret: SECRET });
      // The write failed: the service must retry (a 200 here would lose the event for the write).
      expect(first.status).toBeGreaterThanOrEqual(500);
      expect(script.runs).toEqual([`queue:${payload.generation_id}`, `write:${payload.generation_id}`]);

      script.reset();
      const retry = await deliver(url, payload, { secret: SECRET });
      expect(retry.status).toBe(200);
      expect(await retry.json()).toEqual({ received: true });
      expect(script.runs).toEqual([`queue:${payload.generation_id}`, `write:${payload.generation_id}`]);

      // Handled now: a duplicate runs nothing.
      script.reset();
      const duplicate = await deliver(url, payload, { secret: SECRET });
      expect(await duplicate.json()).toEqual({ received: true, duplicate: true });
      expect(script.runs).toEqual([]);
    });

    it('when every handler acknowledged or succeeded, the delivery is answered 200 once', async () => {
      const payload = makePayload();
      const first = await deliver(url, payload, { secret: SECRET });
      expect(first.status).toBe(200);
      expect(script.runs).toEqual([`queue:${payload.generation_id}`, `write:${payload.generation_id}`]);
      script.reset();
      expect(await (await deliver(url, payload, { secret: SECRET })).json()).toEqual({ received: true, duplicate: true });
      expect(script.runs).toEqual([]);
    });
  });
}

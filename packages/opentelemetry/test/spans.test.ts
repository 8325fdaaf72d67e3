import { MediaGenClient, RESPONSE } from '@mediagen/core';
import { createWebhookHandler } from '@mediagen/core/server';
import { createEmulator } from '@mediagen/emulator';
import { describe, expect, it } from 'vitest';
import { instrument, mediagenTelemetry, traceWebhook } from '../src/index';
import { emulatorDeliveringTo } from './support/emulator';
import { byStart, childrenOf, parentOf, spanText, tracing } from './support/tracing';

const API_KEY = 'svc_live_otel_secret_key_1234';
const WEBHOOK_SECRET = 'whsec_otel_secret_5678';

const { exporter, tracer } = tracing();

describe('@mediagen/opentelemetry: the span tree of one run() with one retry', () => {
  it('run > create > attempt (500), attempt (202); run > status reads; a webhook receive span; no secret anywhere', async () => {
    let received!: () => void;
    const delivered = new Promise<void>((resolve) => {
      received = resolve;
    });
    const webhook = traceWebhook(
      createWebhookHandler({
        secrets: WEBHOOK_SECRET,
        onEvent: () => {
          received();
        },
      }),
      { tracer },
    );
    const emu = emulatorDeliveringTo(webhook, API_KEY, WEBHOOK_SECRET, 'acct_otel');
    try {
      await emu.faults.add({ endpoint: 'generate', count: 1, status: 500 });
      const client = instrument(
        new MediaGenClient({ apiKey: API_KEY, baseUrl: emu.url, ...mediagenTelemetry({ tracer, fetch: emu.fetch }) }),
        {
          tracer,
        },
      );
      const done = await client.generations.run({ model: 'image-fast', prompt: 'a lighthouse' });
      await delivered;
      await emu.deliveries.settled(done.generation_id);

      const spans = exporter.getFinishedSpans();
      const run = spans.find((s) => s.name === 'mediagen.generations.run');
      expect(run).toBeDefined();
      if (!run) return;
      expect(parentOf(run)).toBeUndefined();
      expect(run.attributes).toMatchObject({
        'mediagen.model': 'image-fast',
        'mediagen.generation_id': done.generation_id,
        'mediagen.status': 'completed',
      });
      expect(run.attributes['mediagen.credits']).toBe(done.credits_used);

      const underRun = childrenOf(spans, run);
      const create = underRun.find((s) => s.name === 'mediagen.generations.create');
      expect(create?.attributes).toMatchObject({ 'mediagen.model': 'image-fast', 'mediagen.generation_id': done.generation_id });
      if (!create) return;
      const attempts = childrenOf(spans, create).sort(byStart);
      // Validation reads the model list first, then the submit: its 500, then its resend.
      expect(attempts.map((s) => [s.name, s.attributes['mediagen.attempt'], s.attributes['http.response.status_code']])).toEqual([
        ['mediagen.http GET /api/v1/models', 1, 200],
        ['mediagen.http POST /api/v1/generate', 1, 500],
        ['mediagen.http POST /api/v1/generate', 2, 202],
      ]);
      for (const attempt of attempts) expect(attempt.attributes['mediagen.request_id']).toMatch(/\S/);
      // The submit's key on both of its attempts (the resend bills nothing more); a read has none.
      const key = attempts[1]?.attributes['mediagen.idempotency_key'];
      expect(key).toMatch(/^[0-9a-f-]{36}$/);
      expect(attempts.map((s) => s.attributes['mediagen.idempotency_key'])).toEqual([undefined, key, key]);

      // run() polls through get(): run > get > one attempt each, on the route template (no id in the name).
      const gets = underRun.filter((s) => s.name === 'mediagen.generations.get');
      expect(gets.length).toBeGreaterThan(0);
      for (const get of gets) expect(get.attributes['mediagen.generation_id']).toBe(done.generation_id);
      const reads = gets.flatMap((get) => childrenOf(spans, get));
      expect(reads.map((s) => s.name)).toEqual(gets.map(() => 'mediagen.http GET /api/v1/generations/{id}'));
      for (const read of reads) expect(read.attributes['http.response.status_code']).toBe(200);

      // (In process, the emulator delivers from inside the submit's call, so the receive span has a
      // parent there; over a network it is a root span of the receiving server.)
      const receives = spans.filter((s) => s.name === 'mediagen.webhook.receive');
      expect(receives.length).toBeGreaterThan(0);
      expect(receives.some((s) => s.attributes['http.response.status_code'] === 200)).toBe(true);

      // Nothing secret in any name or attribute: not the key, not the webhook secret, no link query.
      const text = spanText(spans);
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(WEBHOOK_SECRET);
      expect(text).not.toMatch(/authorization|signature|\?/i);
    } finally {
      await emu.close();
    }
  });

  it('attempts are numbered from the client itself: right without instrument(), and under one parent shared by concurrent calls', async () => {
    exporter.reset();
    const emu = createEmulator({
      config: { timeScale: 0.001, accounts: [{ id: 'acct_otel2', tier: 'pro', balance: 1_000, keys: [{ key: API_KEY }] }] },
    });
    try {
      await emu.faults.add({ endpoint: 'generate', count: 2, status: 500 });
      const client = new MediaGenClient({
        apiKey: API_KEY,
        baseUrl: emu.url,
        validate: false,
        ...mediagenTelemetry({ tracer, fetch: emu.fetch }),
      });
      // Two submits at once under one span of the app's: each counts its own attempts.
      const [a, b] = await tracer.startActiveSpan('app.batch', async (span) => {
        try {
          return await Promise.all([
            client.generations.create({ model: 'image-fast', prompt: 'a' }),
            client.generations.create({ model: 'image-fast', prompt: 'b' }),
          ]);
        } finally {
          span.end();
        }
      });
      const submits = exporter.getFinishedSpans().filter((s) => s.name === 'mediagen.http POST /api/v1/generate');
      const attemptsOf = (key: unknown) =>
        submits
          .filter((s) => s.attributes['mediagen.idempotency_key'] === key)
          .map((s) => [s.attributes['mediagen.attempt'], s.attributes['http.response.status_code']]);
      // Whichever attempts met the two injected 500s, each submit numbers its own 1, 2, … and
      // ends with its 202 (the old count, kept per parent span, mixed the two up).
      const both = [attemptsOf(a[RESPONSE].idempotencyKey), attemptsOf(b[RESPONSE].idempotencyKey)];
      for (const attempts of both) {
        expect(attempts.map(([attempt]) => attempt)).toEqual(attempts.map((_, i) => i + 1));
        expect(attempts.map(([, status]) => status)).toEqual([...attempts.slice(1).map(() => 500), 202]);
      }
      expect(both.flat().filter(([, status]) => status === 500)).toHaveLength(2);
    } finally {
      await emu.close();
    }
  });
});

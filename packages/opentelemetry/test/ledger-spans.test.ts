import { MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, type LedgerGeneration, MemoryGenerationStore } from '@mediagen/core/ledger';
import { createEmulator } from '@mediagen/emulator';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { instrument, mediagenTelemetry, traceLedger } from '../src/index';
import { byStart, childrenOf, parentOf, spanText, tracing } from './support/tracing';

const API_KEY = 'svc_live_otel_ledger_key_2468';
const ACCOUNT = 'acct_otel_ledger';

const { exporter, tracer } = tracing();

describe('mediagen.ledger.reconcile', () => {
  it('one span per pass with its report; the resend and the reads nest under it; errors counted; no secret', async () => {
    const emu = createEmulator({
      config: { timeScale: 0.001, accounts: [{ id: ACCOUNT, tier: 'pro', balance: 1_000, keys: [{ key: API_KEY }] }] },
    });
    try {
      const client = instrument(
        new MediaGenClient({ apiKey: API_KEY, baseUrl: emu.url, maxRetries: 0, ...mediagenTelemetry({ tracer, fetch: emu.fetch }) }),
        { tracer },
      );
      let t = Date.now();
      const handed: LedgerGeneration[] = [];
      const ledger = traceLedger(
        createGenerationLedger({ client, store: new MemoryGenerationStore(), now: () => t, onTerminal: (g) => void handed.push(g) }),
        { tracer },
      );
      const reserves = async () => (await emu.accounts.get(ACCOUNT)).ledger.filter((row) => row.type === 'reserve');

      // The 202 is lost after the service billed the submit: the intent waits for a pass to resend it.
      await emu.faults.add({ endpoint: 'generate', count: 1, status: 500, when: 'after' });
      const refused = await ledger
        .submit('alice', { model: 'image-fast', prompt: 'traced' }, { idempotencyKey: 'otel-intent-1' })
        .catch((e) => e);
      expect(refused).toMatchObject({ code: 'INTERNAL_ERROR', retryable: true });
      exporter.reset();

      t += 2_000;
      const resend = await ledger.reconcile();
      expect(resend).toMatchObject({ followed: 1, resent: 1, polled: 0, errors: 0 });
      const [generation] = (await ledger.list('alice')).generations;
      const id = generation?.generation_id as string;
      expect((await reserves()).map((row) => row.generation_id)).toEqual([id]);

      // A pass whose status read fails: counted as an error of that pass, not thrown.
      await emu.faults.add({ endpoint: 'status', count: 1, status: 500 });
      t += 4_000;
      expect(await ledger.reconcile()).toMatchObject({ polled: 1, errors: 1 });

      // Passes until the generation is handed over.
      await emu.deliveries.settled(id);
      for (let i = 0; i < 20 && handed.length === 0; i++) {
        t += 4_000;
        await ledger.reconcile();
      }
      expect(handed.map((g) => g.generation_id)).toEqual([id]);

      const spans = exporter.getFinishedSpans();
      const passes = spans.filter((s) => s.name === 'mediagen.ledger.reconcile').sort(byStart);
      for (const pass of passes) expect(parentOf(pass)).toBeUndefined();
      const counts = (s: ReadableSpan) =>
        ['due', 'followed', 'polled', 'resent', 'notified', 'errors'].map((k) => s.attributes[`mediagen.ledger.${k}`]);
      const [first, second] = passes;
      if (!first || !second) throw new Error('expected the passes as spans');
      expect(counts(first)).toEqual([1, 1, 0, 1, 0, 0]);
      expect(counts(second)).toEqual([1, 1, 1, 0, 0, 1]);
      // Errors the ledger recovers from leave the status unset; the count says what happened.
      expect(second.status.code).toBe(SpanStatusCode.UNSET);
      expect(passes.reduce((sum, pass) => sum + Number(pass.attributes['mediagen.ledger.notified']), 0)).toBe(1);

      // The resend nests under the first pass: create > its attempt, with the intent's own key.
      const [create] = childrenOf(spans, first).filter((s) => s.name === 'mediagen.generations.create');
      if (!create) throw new Error('expected the resend under the first pass');
      const attempts = childrenOf(spans, create).filter((s) => s.name === 'mediagen.http POST /api/v1/generate');
      expect(attempts.map((s) => [s.attributes['mediagen.idempotency_key'], s.attributes['http.response.status_code']])).toEqual([
        ['otel-intent-1', 202],
      ]);
      // The failed read nests under the second: get > its attempt, answered 500.
      const [get] = childrenOf(spans, second).filter((s) => s.name === 'mediagen.generations.get');
      if (!get) throw new Error('expected the status read under the second pass');
      expect(get.status).toEqual({ code: SpanStatusCode.ERROR, message: 'INTERNAL_ERROR' });
      expect(childrenOf(spans, get).map((s) => s.attributes['http.response.status_code'])).toEqual([500]);

      const text = spanText(spans);
      expect(text).not.toContain(API_KEY);
      expect(text).not.toMatch(/authorization|signature|\?/i);
    } finally {
      await emu.close();
    }
  });
});

/**
 * The checks every runtime runs, written once in plain ESM so each runtime loads it as it is
 * (Node, Bun, Deno) or as one bundle (workerd). Only Web APIs and core's public entries: what
 * differs between runtimes (fetch's `this`, Web Crypto, env access, globals) is what is tested.
 *
 * Each check resolves to `{ check, ok, detail }` or `{ check, ok: false, error }`; the checks run
 * in order and never throw, so one fault shows as one failed cell line, not a lost run.
 */
import {
  InvalidRequestError,
  MediaGenClient,
  MediaGenError,
  NotFoundError,
  RESPONSE,
  verifyWebhook,
  WebhookVerificationError,
} from '@mediagen/core';
import { createWebhookHandler } from '@mediagen/core/server';
import { createHmac } from '@mediagen/core/testing';

/** The names, in order; the runner and the README table read them from here. */
export const CHECKS = ['create-wait', 'stored-fetch', 'typed-errors', 'retry', 'verify-webhook', 'webhook-receiver'];

const PROMPT = 'a lighthouse at dusk, runtime matrix';

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * @param {{ baseUrl: string, apiKey: string, webhookSecret: string, captureUrl: string }} env
 *   `captureUrl`: the runner's recorder of the emulator's real signed deliveries.
 * @returns {Promise<Array<{ check: string, ok: boolean, detail?: unknown, error?: string }>>}
 */
export async function runScenario(env) {
  const state = {};
  const steps = {
    // The default client: global fetch, polling until the generation settles.
    'create-wait': async () => {
      const client = new MediaGenClient({ apiKey: env.apiKey, baseUrl: env.baseUrl });
      const submitted = await client.generations.create({ model: 'image-fast', prompt: PROMPT });
      const done = await client.generations.wait(submitted.generation_id, { timeoutMs: 120_000 });
      assert(done.status === 'completed', `status ${done.status}`);
      // Made with the runtime's own `crypto.randomUUID`, at call time (Workers refuse it at module
      // scope); core keeps it with the response's metadata, under the RESPONSE symbol.
      assert(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(submitted[RESPONSE]?.idempotencyKey),
        'no UUID idempotency key',
      );
      state.generationId = done.generation_id;
      return { status: done.status };
    },
    // What apps write on Workers and Deno Deploy: the runtime's fetch handed over as a value.
    // A client that calls it as a method of its own config throws "Illegal invocation" on workerd.
    'stored-fetch': async () => {
      const client = new MediaGenClient({ apiKey: env.apiKey, baseUrl: env.baseUrl, fetch: globalThis.fetch });
      const generation = await client.generations.get(state.generationId ?? 'gen_missing_create_wait');
      return { status: generation.status };
    },
    'typed-errors': async () => {
      const client = new MediaGenClient({ apiKey: env.apiKey, baseUrl: env.baseUrl, validate: false });
      const notFound = await client.generations.get('gen_does_not_exist').catch((e) => e);
      assert(notFound instanceof NotFoundError && notFound instanceof MediaGenError, `404 gave ${describe(notFound)}`);
      const invalid = await client.generations.create({ model: 'image-fast', prompt: PROMPT, aspect_ratio: '7:3' }).catch((e) => e);
      assert(invalid instanceof InvalidRequestError && invalid.status === 422, `bad param gave ${describe(invalid)}`);
      return { notFound: notFound.code, invalid: invalid.code };
    },
    // One 500 injected through the emulator's fault control: the client resends with the same key.
    retry: async () => {
      const fault = await fetch(`${env.baseUrl}/__emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint: 'generate', status: 500, count: 1 }),
      });
      assert(fault.status === 201, `fault control answered ${fault.status}`);
      const retries = [];
      const client = new MediaGenClient({ apiKey: env.apiKey, baseUrl: env.baseUrl, onRetry: (info) => retries.push(info.error.status) });
      const submitted = await client.generations.create({ model: 'image-fast', prompt: PROMPT });
      assert(retries.length === 1 && retries[0] === 500, `retries seen: ${JSON.stringify(retries)}`);
      return { retriedOn: retries, generationId: typeof submitted.generation_id === 'string' };
    },
    // The emulator's own signed delivery of the first generation, verified here.
    'verify-webhook': async () => {
      const delivery = await deliveryOf(env, state.generationId);
      const event = await verifyWebhook({
        body: delivery.body,
        signature: delivery.headers['x-service-signature'],
        event: delivery.headers['x-service-event'],
        deliveryId: delivery.headers['x-service-delivery-id'],
        secrets: env.webhookSecret,
      });
      assert(event.type === 'generation.completed' && event.data.generation_id === state.generationId, `event ${event.type}`);
      const tampered = await verifyWebhook({
        body: delivery.body.replace('completed', 'failed'),
        signature: delivery.headers['x-service-signature'],
        secrets: env.webhookSecret,
      }).catch((e) => e);
      assert(tampered instanceof WebhookVerificationError, `tampered body gave ${describe(tampered)}`);
      // Which HMAC core picked here: Node's crypto where `process.getBuiltinModule` exists, else Web Crypto.
      return { type: event.type, tampered: tampered.code, hmac: createHmac().backend };
    },
    // core/server's receiver, Web Request in and Response out, fed the same real delivery.
    'webhook-receiver': async () => {
      const delivery = await deliveryOf(env, state.generationId);
      const seen = [];
      const handler = createWebhookHandler({ secrets: env.webhookSecret, onEvent: (event) => seen.push(event.data.generation_id) });
      const deliver = (body) => handler(new Request('http://receiver.test/webhooks', { method: 'POST', headers: delivery.headers, body }));
      const first = await deliver(delivery.body);
      const again = await deliver(delivery.body);
      const forged = await deliver(delivery.body.replace('completed', 'failed'));
      const refusal = await forged.json();
      assert(first.status === 200 && again.status === 200, `answers ${first.status}, ${again.status}`);
      assert(seen.length === 1 && seen[0] === state.generationId, `handled ${JSON.stringify(seen)}`);
      assert(forged.status >= 400 && forged.status < 500 && typeof refusal.error === 'string', `forged gave ${forged.status}`);
      return { answers: [first.status, again.status, forged.status], handledOnce: true, refusal: refusal.error };
    },
  };
  const results = [];
  for (const check of CHECKS) {
    try {
      results.push({ check, ok: true, detail: await steps[check]() });
    } catch (error) {
      results.push({ check, ok: false, error: describe(error) });
    }
  }
  return results;
}

/** The delivery the runner recorded for a generation (it long-polls until one arrives). */
async function deliveryOf(env, generationId) {
  assert(generationId, 'no generation from create-wait');
  const response = await fetch(`${env.captureUrl}/deliveries/${encodeURIComponent(generationId)}`);
  assert(response.status === 200, `no delivery recorded for ${generationId} (${response.status})`);
  return response.json();
}

function describe(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 500);
  return String(error).slice(0, 500);
}

import { signWebhook } from '@mediagen/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, KEY, SECRET, type Stack, startStack } from './support/stack.js';

// Every answer the app gives, on its happy paths and its failures (the service's errors, injected
// faults, hostile input), and every line the process prints meanwhile, scanned for the API key and
// the webhook secret in use: neither may ever reach a browser or a log.
let s: Stack;
const answers: string[] = [];
const printed: string[] = [];
const restore: Array<() => void> = [];

beforeAll(async () => {
  // Every request, answer and retry of the app's client is logged (as MEDIAGEN_LOG=debug does in production).
  process.env.MEDIAGEN_LOG = 'debug';
  restore.push(() => delete process.env.MEDIAGEN_LOG);
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[method];
    console[method] = (...args: unknown[]) =>
      void printed.push(
        args.map((a) => (a instanceof Error ? `${a.stack} ${String(a.cause)}` : typeof a === 'string' ? a : JSON.stringify(a))).join(' '),
      );
    restore.push(() => (console[method] = original));
  }
  // No retries: each injected fault reaches the app's answer at once.
  s = await startStack({ timeScale: 0.01, maxRetries: 0 });
});
afterAll(async () => {
  for (const undo of restore) undo();
  await s?.close();
});

/** One request to the app; its status line, headers and body are kept for the scan. */
async function call(path: string, init?: RequestInit): Promise<Response> {
  const res = await fetch(s.origin + path, { ...init, headers: { cookie: s.cookie, ...(init?.headers as Record<string, string>) } });
  const body = await res.clone().text();
  answers.push(`${init?.method ?? 'GET'} ${path} -> ${res.status} ${JSON.stringify([...res.headers])} ${body}`);
  return res;
}
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  call(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const fault = (body: Record<string, unknown>) =>
  fetch(`${s.emulator.url}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('no secret in any answer or log line of the sample', () => {
  it('happy paths, refusals, service failures and hostile input', async () => {
    const ok = await post('/api/generations', JSON.stringify({ model: 'image-fast', prompt: 'a kite' }), { 'idempotency-key': 'k-1' });
    expect(ok.status).toBe(202);
    const { generation_id: id } = (await ok.json()) as { generation_id: string };
    await eventually(async () => (await s.list()).find((g) => g.generation_id === id && g.status === 'completed'));

    // Refused by the app, by core's validation and by the service.
    expect((await post('/api/generations', '{"model":')).status).toBe(422);
    expect((await post('/api/generations', JSON.stringify({ model: 'no-such-model', prompt: 'x' }))).status).toBeGreaterThanOrEqual(400);
    expect((await post('/api/generations', JSON.stringify({ model: 'image-fast', prompt: 'x', size: '1x1' }))).status).toBe(422);
    expect((await post('/api/generations', JSON.stringify({ model: 'image-fast' }))).status).toBe(422);
    expect((await post('/api/generations', '{}', { 'idempotency-key': 'x'.repeat(300) })).status).toBe(422);
    // Service failures: an outage before enqueue, and lost answers, on submit and on reads.
    await fault({ endpoint: 'generate', count: 10, status: 503, code: 'PROVIDER_DOWN', when: 'before' });
    expect((await post('/api/generations', JSON.stringify({ model: 'image-fast', prompt: 'y' }))).status).toBeGreaterThanOrEqual(500);
    await fetch(`${s.emulator.url}/__emulator/faults`, { method: 'DELETE' });
    await fault({ endpoint: 'credits', count: 10, reset: true });
    expect((await call('/api/credits')).status).toBeGreaterThanOrEqual(500);
    await fault({ endpoint: 'models', count: 10, status: 500, code: 'INTERNAL_ERROR' });
    expect((await call('/api/models')).status).toBeGreaterThanOrEqual(500);
    await fetch(`${s.emulator.url}/__emulator/faults`, { method: 'DELETE' });
    // Reads, good and bad.
    for (const path of [
      '/api/generations',
      `/api/generations/${id}`,
      '/api/generations/%ZZ',
      '/api/generations/nope',
      '/api/models',
      '/api/credits',
      '/',
    ]) {
      await call(path);
    }
    // Webhooks: a forged signature, a body that is not an event, a good one replayed.
    const raw = JSON.stringify({ generation_id: id, status: 'completed' });
    expect((await post('/api/webhooks/mediagen', raw, { 'x-service-signature': `sha256=${'0'.repeat(64)}` })).status).toBe(401);
    expect((await post('/api/webhooks/mediagen', '[]', { 'x-service-signature': await signWebhook('[]', SECRET) })).status).toBe(400);
    expect(
      (await post('/api/webhooks/mediagen', 'not json', { 'x-service-signature': await signWebhook('not json', SECRET) })).status,
    ).toBe(400);

    expect(answers.length).toBeGreaterThan(15);
    // The client logged its traffic and errors, so the scan below read real log lines.
    expect(printed.join('\n')).toMatch(/POST .*\/api\/v1\/generate/);
    for (const secret of [KEY, SECRET]) {
      expect(answers.join('\n')).not.toContain(secret);
      expect(printed.join('')).not.toContain(secret);
    }
  });
});

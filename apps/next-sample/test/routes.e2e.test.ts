import { signWebhook } from '@mediagen/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET, type Stack, startStack } from './support/stack';

async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the studio routes over HTTP (next start + a real emulator), same as the Express sample', () => {
  let stack: Stack;
  beforeAll(async () => void (stack = await startStack()));
  afterAll(() => stack?.close());

  const submit = (params: object, key?: string) =>
    stack.json('/api/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(params),
    });

  it("POST /api/generations answers the 202 body; the page's Idempotency-Key makes a resend bill once", async () => {
    const reservesBefore = (await stack.account()).ledger.filter((r) => r.type === 'reserve').length;
    const first = await submit({ model: 'image-fast', prompt: 'twice' }, 'form-42');
    const again = await submit({ model: 'image-fast', prompt: 'twice' }, 'form-42');
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: 'pending', model: 'image-fast', credits_estimate: 4 });
    expect(again.body.generation_id).toBe(first.body.generation_id);
    expect((await stack.account()).ledger.filter((r) => r.type === 'reserve').length - reservesBefore).toBe(1);
  });

  it('GET /api/generations lists newest first, settled by the webhook, once however often it is delivered', async () => {
    const a = await submit({ model: 'image-fast', prompt: 'first' });
    const b = await submit({ model: 'image-fast', prompt: 'second' });
    const ids = (await stack.list()).map((g) => g.generation_id);
    expect(ids.indexOf(b.body.generation_id)).toBeLessThan(ids.indexOf(a.body.generation_id));
    const done = await eventually(async () =>
      (await stack.list()).find((g) => g.generation_id === a.body.generation_id && g.status === 'completed'),
    );
    expect(done).toMatchObject({ source: 'webhook', webhooks: 1, prompt: 'first' });

    // The same event again (a retry after a lost answer): 200, recorded once.
    const payload = JSON.stringify({
      generation_id: a.body.generation_id,
      status: 'completed',
      model: 'image-fast',
      output_url: done.output_url,
      output_urls: done.output_urls,
      credits_charged: 4,
      duration_ms: 1,
      completed_at: done.completed_at,
    });
    const res = await fetch(`${stack.origin}/api/webhooks/mediagen`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-signature': await signWebhook(payload, SECRET),
        'x-service-event': 'generation.completed',
      },
      body: payload,
    });
    expect(res.status).toBe(200);
    expect((await stack.list()).find((g) => g.generation_id === a.body.generation_id)?.webhooks).toBe(1);
  });

  it('refuses what the service would refuse, with its error body, and never shows the API key', async () => {
    const bad = await submit({ model: 'image-fast', prompt: 'x', quality: 'high' });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ error: 'PARAMS_INVALID', details: { field: 'quality' } });
    const forged = await fetch(`${stack.origin}/api/webhooks/mediagen`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': 'sha256=00' },
      body: '{}',
    });
    expect(forged.status).toBe(401);
    for (const path of ['/', '/api/generations', '/api/credits'])
      expect(await (await fetch(stack.origin + path)).text()).not.toContain('svc_live_');
  });

  it('the status route answers from the webhook record, and the SQLite store survives a restart', async () => {
    const { body } = await submit({ model: 'image-fast', prompt: 'keep me' });
    await eventually(async () => (await stack.list()).find((g) => g.generation_id === body.generation_id && g.status === 'completed'));
    const status = await stack.json(`/api/generations/${body.generation_id}`);
    expect(status.body).toMatchObject({ generation_id: body.generation_id, status: 'completed', source: 'webhook' });
    await stack.restart();
    expect((await stack.list()).find((g) => g.generation_id === body.generation_id)).toMatchObject({
      status: 'completed',
      prompt: 'keep me',
    });
    expect((await stack.json('/api/generations/%ZZ')).status).toBeLessThan(500);
  });
});

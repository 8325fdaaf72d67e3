import { signWebhook } from '@mediagen/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET, type Stack, startStack } from './support/stack';

/**
 * Polls `check` until it returns a value (not undefined/false). No deadline of its own: the
 * test's timeout bounds it, so a loaded machine makes it slower, never wrong.
 */
async function eventually<T>(check: () => Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value) return value;
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
    expect(done).toMatchObject({ params: { prompt: 'first' }, available: true });

    // The same event again (a retry after a lost answer): 200, and the record stays as it was.
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
    expect((await stack.list()).find((g) => g.generation_id === a.body.generation_id)).toMatchObject({
      status: 'completed',
      output_url: done.output_url,
      completed_at: done.completed_at,
    });
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

  it('the status route reads the generation live, and the ledger (and the user) survive a restart', async () => {
    const { body } = await submit({ model: 'image-fast', prompt: 'keep me' });
    await eventually(async () => (await stack.list()).find((g) => g.generation_id === body.generation_id && g.status === 'completed'));
    const status = await stack.json(`/api/generations/${body.generation_id}`);
    expect(status.body).toMatchObject({ generation_id: body.generation_id, status: 'completed', output_url: expect.any(String) });
    await stack.restart();
    expect((await stack.list()).find((g) => g.generation_id === body.generation_id)).toMatchObject({
      status: 'completed',
      params: { prompt: 'keep me' },
      available: true,
    });
    // Next fails decoding the catch-all's params with a bare 500 before any route runs: proxy.ts
    // answers these 400, on every path under /api but the receiver's own.
    for (const path of ['/api/generations/%ZZ', '/api/generations/%ZZ/events', '/api/webhooks/mediagen/%ZZ'])
      expect([path, (await stack.json(path)).status]).toEqual([path, 400]);
  });

  it("one user cannot read, list, stream or fetch the text of another user's generation: 404, as for an unknown id", async () => {
    const { body } = await submit({ model: 'text-writer', prompt: 'a secret tagline' });
    const id = body.generation_id as string;
    await eventually(async () => (await stack.list()).find((g) => g.generation_id === id && g.status === 'completed'));
    expect((await stack.fetch(`${stack.origin}/api/generations/${id}/text`)).status).toBe(200);
    const other = stack.user();
    for (const path of [`/api/generations/${id}`, `/api/generations/${id}/events`, `/api/generations/${id}/text`]) {
      const res = await other.json(path);
      expect([path, res.status, res.body.error]).toEqual([path, 404, 'NOT_FOUND']);
    }
    expect((await other.list()).map((g) => g.generation_id)).not.toContain(id);
    // Their own stream, to its end: one event (its `id:`, for Last-Event-ID, and a `data:` line) per status, the last one terminal.
    const events = await (await stack.fetch(`${stack.origin}/api/generations/${id}/events`)).text();
    expect(events.trim().split('\n\n').at(-1)).toMatch(/^id: \d+\ndata: .*"status":"completed"/);
  });

  it("the same Idempotency-Key from another user is another generation (keys are scoped per user); the page's actions follow the same rules", async () => {
    const key = `form-${crypto.randomUUID()}`;
    const mine = await submit({ model: 'image-fast', prompt: 'scoped' }, key);
    const theirs = await stack.user().json('/api/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ model: 'image-fast', prompt: 'scoped' }),
    });
    expect([mine.status, theirs.status]).toEqual([202, 202]);
    expect(theirs.body.generation_id).not.toBe(mine.body.generation_id);
    const bad = await submit({ model: 'image-fast', prompt: 'x' }, 'caf\u00e9');
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ error: 'INVALID_BODY', details: { field: 'Idempotency-Key' } });
  });

  it('sets the user cookie on first contact, page or API (HttpOnly, SameSite=Lax, Secure over HTTPS), and never on the webhook route', async () => {
    for (const path of ['/', '/api/credits']) {
      const plain = (await fetch(stack.origin + path)).headers.get('set-cookie') ?? '';
      expect(plain).toMatch(/^mediagen_user=[0-9a-f-]{36};/);
      expect(plain).toMatch(/; HttpOnly/);
      expect(plain).toMatch(/; SameSite=lax/i);
      expect(plain).not.toMatch(/; Secure/);
      const tls = (await fetch(stack.origin + path, { headers: { 'x-forwarded-proto': 'https' } })).headers.get('set-cookie') ?? '';
      expect(tls).toMatch(/; Secure/);
    }
    // Once set, it is kept: no new cookie on later requests.
    await stack.list();
    expect((await stack.fetch(`${stack.origin}/api/credits`)).headers.get('set-cookie')).toBeNull();
    const webhook = await fetch(`${stack.origin}/api/webhooks/mediagen`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(webhook.status).toBe(401);
    expect(webhook.headers.get('set-cookie')).toBeNull();
  });
});

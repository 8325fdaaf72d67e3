import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWebhook } from '@mediagen/core';
import type { LedgerGeneration } from '@mediagen/core/ledger';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, OLD_SECRET, SECRET, type Stack, startStack, userCookie } from './support/stack.js';

const stacks: Stack[] = [];
async function stack(...args: Parameters<typeof startStack>) {
  const s = await startStack(...args);
  stacks.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});

const terminal = (g: LedgerGeneration | undefined) => g?.status === 'completed' || g?.status === 'failed';
async function settled(s: Stack, id: string) {
  return eventually(async () => (await s.list()).find((g) => g.generation_id === id && terminal(g)));
}

describe('express-sample against the emulator, over HTTP', () => {
  it('a generation submitted through the app completes, learnt from its webhook, which lands once', async () => {
    const s = await stack();
    const submitted = await s.submit({ model: 'image-fast', prompt: 'a lighthouse at dusk', seed: 3 }, { 'idempotency-key': 'k-1' });
    expect(submitted.status).toBe(202);
    expect(submitted.body).toMatchObject({ status: 'pending', model: 'image-fast', pricing_source: 'catalog_default' });
    const id = submitted.body.generation_id as string;

    // Recorded at submit (intent first); on a loaded machine the webhook may already have landed by this read.
    const [pending] = await s.list();
    expect(pending).toMatchObject({ generation_id: id, model: 'image-fast' });

    const done = await settled(s, id);
    expect(done).toMatchObject({ status: 'completed', credits_used: expect.any(Number), available: true });
    expect(done.output_url).toMatch(/\/api\/v1\/output\//);
    const image = await fetch(done.output_url!);
    expect(image.headers.get('content-type')).toMatch(/^image\//);
    const deliveries = await eventually(async () => {
      const rows = await s.deliveries(id);
      return rows.length > 0 && rows[0]!.outcome !== 'pending' && rows;
    });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ attempt: 1, status: 200, outcome: 'delivered', url: s.webhookUrl });

    // The one generation, its live read and its stream, for its owner.
    const read = await s.json(`/api/generations/${id}`);
    expect(read).toMatchObject({ status: 200, body: { generation_id: id, status: 'completed' } });
    const replay = await s.submit({ model: 'image-fast', prompt: 'a lighthouse at dusk', seed: 3 }, { 'idempotency-key': 'k-1' });
    expect(replay.body.generation_id).toBe(id);
    expect(await s.billed(id)).toBe(1);
  });

  it('lists newest first', async () => {
    const s = await stack();
    const a = await s.submit({ model: 'image-fast', prompt: 'first' });
    const b = await s.submit({ model: 'image-fast', prompt: 'second' });
    const ids = (await s.list()).map((g) => g.generation_id);
    expect(ids).toEqual([b.body.generation_id, a.body.generation_id]);
  });

  it("each browser sees only its own: another cookie's generation is 404 to read, list and stream", async () => {
    const s = await stack();
    const { body } = await s.submit({ model: 'image-fast', prompt: 'mine' });
    const id = body.generation_id as string;
    const other = userCookie();
    expect(await s.list(other)).toEqual([]);
    for (const path of [`/api/generations/${id}`, `/api/generations/${id}/events`]) {
      const res = await fetch(s.origin + path, { headers: { cookie: other } });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'NOT_FOUND' });
    }
    // A browser with no cookie is a new user too: nothing of anyone's.
    const anonymous = await fetch(`${s.origin}/api/generations/${id}`);
    expect(anonymous.status).toBe(404);
    expect((await s.json(`/api/generations/${id}`)).status).toBe(200);
  });

  it('the first contact sets the user cookie: HttpOnly, SameSite=Lax, Secure only over HTTPS', async () => {
    const s = await stack();
    const plain = await fetch(`${s.origin}/`);
    const cookie = plain.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^mediagen_user=[0-9a-f-]{36};/);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).not.toMatch(/; Secure/i);
    // A returning browser keeps its user: no new cookie.
    expect((await fetch(`${s.origin}/`, { headers: { cookie: s.cookie } })).headers.get('set-cookie')).toBeNull();
    // A made-up value is not a user: replaced.
    const forged = await fetch(`${s.origin}/api/generations`, { headers: { cookie: 'mediagen_user=admin' } });
    expect(forged.headers.get('set-cookie')).toMatch(/^mediagen_user=[0-9a-f-]{36};/);
    expect((await forged.json()).generations).toEqual([]);
  });

  it('a failed generation is shown with its error', async () => {
    const s = await stack();
    const { body } = await s.submit({ model: 'image-fast', prompt: 'a cat [[fail:model_unavailable]]' });
    const failed = await settled(s, body.generation_id);
    expect(failed).toMatchObject({ status: 'failed', output_url: null, error: { code: 'model_unavailable' }, credits_used: 0 });
  });

  it('a forged or replayed delivery changes nothing: 400 for a header the signature does not cover, 401 for a bad signature', async () => {
    const s = await stack();
    const { body } = await s.submit({ model: 'image-fast', prompt: 'duplicates' });
    const done = await settled(s, body.generation_id);
    const raw = JSON.stringify({
      generation_id: done.generation_id,
      status: 'failed',
      model: 'image-fast',
      output_url: null,
      output_urls: null,
      credits_charged: 0,
      duration_ms: 1,
      completed_at: new Date().toISOString(),
      error_code: 'unknown',
      error_message: 'replayed',
      retryable: false,
    });
    const send = async (signature: string, event = 'generation.completed') =>
      fetch(s.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': signature, 'x-service-event': event },
        body: raw,
      });
    const before = await s.list();
    expect((await send(await signWebhook(raw, SECRET))).status).toBe(400);
    expect((await send(await signWebhook(raw, 'whsec_attacker'))).status).toBe(401);
    expect((await send(`sha256=${'0'.repeat(64)}`, 'generation.failed')).status).toBe(401);
    // A genuine but late "failed" for a completed generation: a terminal state never moves.
    expect((await send(await signWebhook(raw, SECRET), 'generation.failed')).status).toBe(200);
    expect((await s.list()).map((g) => [g.generation_id, g.status])).toEqual(before.map((g) => [g.generation_id, g.status]));
  });

  it('rotation: endpoints signing with the old and the new secret are both accepted', async () => {
    const s = await stack({ appSecrets: [OLD_SECRET, SECRET], endpointSecrets: [OLD_SECRET, SECRET] });
    const { body } = await s.submit({ model: 'image-fast', prompt: 'rotation' });
    await settled(s, body.generation_id);
    const deliveries = await eventually(async () => {
      const rows = await s.deliveries(body.generation_id);
      return rows.length === 2 && rows.every((r) => r.outcome !== 'pending') && rows;
    });
    expect(deliveries.map((d) => d.status)).toEqual([200, 200]);
  });

  it('an app on the old secret alone refuses the new one with a 4xx (not retried); its reconciler still finds the result', async () => {
    const s = await stack({ appSecrets: [OLD_SECRET], endpointSecrets: [SECRET] });
    const { body } = await s.submit({ model: 'image-fast', prompt: 'stale secret' });
    const [row] = await eventually(async () => {
      const rows = await s.deliveries(body.generation_id);
      return rows.length > 0 && rows[0]!.outcome !== 'pending' && rows;
    });
    expect(row).toMatchObject({ attempt: 1, status: 401, outcome: 'rejected' });
    expect(await settled(s, body.generation_id)).toMatchObject({ status: 'completed' });
  });

  it('when no webhook comes, the reconciler polls the result (receiver rule 8)', async () => {
    const s = await stack({ endpointSecrets: [] });
    const { body } = await s.submit({ model: 'image-fast', prompt: 'no webhook' });
    const done = await settled(s, body.generation_id);
    expect(done).toMatchObject({ status: 'completed' });
    expect(done.output_urls).toHaveLength(1);
  });

  it("a submit whose 202 is lost is not lost: the reconciler resends the intent with its key, billed once, and the browser's retry answers it", async () => {
    const s = await stack({ maxRetries: 0 });
    // The service accepts and bills, then the answer never reaches the app.
    await fetch(`${s.emulator.url}/__emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint: 'generate', count: 1, reset: true, when: 'after' }),
    });
    const lost = await s.submit({ model: 'image-fast', prompt: 'answer lost' }, { 'idempotency-key': 'lost-1' });
    expect(lost.status).toBeGreaterThanOrEqual(500);
    // Listed at once, as an intent being submitted (it may be billed already); the same entry
    // carries the generation once the reconciler's resend is answered.
    expect(await s.list()).toMatchObject([{ submitting: true, generation_id: null }]);
    const [found] = await eventually(async () => {
      const list = await s.list();
      return list.length === 1 && list[0]?.generation_id ? list : false;
    });
    const id = found!.generation_id as string;
    const retry = await s.submit({ model: 'image-fast', prompt: 'answer lost' }, { 'idempotency-key': 'lost-1' });
    expect(retry).toMatchObject({ status: 202, body: { generation_id: id } });
    await settled(s, id);
    expect(await s.billed(id)).toBe(1);
  });

  it('a restart loses nothing: earlier generations are listed with links that work', async () => {
    const s = await stack();
    const { body } = await s.submit({ model: 'image-fast', prompt: 'survives restarts' });
    await settled(s, body.generation_id);
    const before = await s.list();
    await s.restart();
    const after = await s.list();
    expect(after.map((g) => [g.generation_id, g.status])).toEqual(before.map((g) => [g.generation_id, g.status]));
    for (const url of after.flatMap((g) => g.output_urls ?? [])) expect((await fetch(url)).status).toBe(200);
    expect((await s.json(`/api/generations/${body.generation_id}`)).status).toBe(200);
  });

  it("with persistOutputs, the links are the app's own: they work after the service forgot the generation", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'express-sample-kept-'));
    const first = await stack({ persistOutputs: true, dataDir });
    const { body } = await first.submit({ model: 'image-fast', prompt: 'kept' });
    const done = await eventually(async () => {
      const g = (await first.list()).find((x) => x.generation_id === body.generation_id);
      return g?.status === 'completed' && g.output_url?.startsWith('/outputs/') && g;
    });
    // The app stops; the service is replaced by one that never heard of it; the app starts again.
    const cookie = first.cookie;
    stacks.splice(stacks.indexOf(first), 1);
    await first.close();
    const second = await stack({ persistOutputs: true, dataDir });
    try {
      const [again] = await second.list(cookie);
      expect(again).toMatchObject({ generation_id: body.generation_id, status: 'completed', output_url: done.output_url });
      const file = await fetch(second.origin + again!.output_url!);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toMatch(/^image\//);
    } finally {
      stacks.splice(stacks.indexOf(second), 1);
      await second.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('submit errors come back with the spec error body, and nothing is listed', async () => {
    const s = await stack();
    const blocked = await s.submit({ model: 'image-fast', prompt: 'nope [[blocked]]' });
    expect(blocked.status).toBe(400);
    expect(blocked.body).toMatchObject({ error: 'CONTENT_POLICY_VIOLATION', request_id: expect.stringMatching(/^req_/) });
    expect(await s.list()).toEqual([]);
  });

  it('serves the page with no external assets', async () => {
    const s = await stack();
    const res = await fetch(`${s.origin}/`);
    const html = await res.text();
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(html).toContain('<form');
    expect(html).not.toMatch(/(src|href)=["']https?:/);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWebhook } from '@mediagen/core';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, KEY, type ListedGeneration, OLD_SECRET, SECRET, type Stack, startStack } from './support/stack.js';

const stacks: Stack[] = [];
async function stack(...args: Parameters<typeof startStack>) {
  const s = await startStack(...args);
  stacks.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});

async function settled(s: Stack, id: string) {
  return eventually(async () =>
    (await s.list()).find((g) => g.generation_id === id && (g.status === 'completed' || g.status === 'failed')),
  );
}

/** A link's status; a socket kept alive to an emulator since stopped fails once (as a browser would retry). */
async function statusOf(url: string): Promise<number> {
  const read = async () => (await fetch(url)).status;
  return read().catch(read);
}

/** What a generation is, without its links (a read may sign them afresh). */
/**
 * What a restart must keep. Not the links, nor the `request_id` of the read that brought them: a new
 * process re-reads a completed generation once before serving its links, and a read more than a
 * second later signs fresher links under its own request id (a loaded machine crosses that second).
 */
function facts({ output_url: _url, output_urls: _urls, request_id: _read, ...rest }: ListedGeneration) {
  return rest;
}

describe('nest-sample against the emulator, over HTTP', () => {
  it('a generation submitted through the app completes, learnt from its webhook, which lands once', async () => {
    const s = await stack();
    const submitted = await s.submit({ model: 'image-fast', prompt: 'a lighthouse at dusk', seed: 3 });
    expect(submitted.status).toBe(202);
    expect(submitted.body).toMatchObject({ status: 'pending', model: 'image-fast', pricing_source: 'catalog_default' });
    const id = submitted.body.generation_id as string;

    // Recorded in the ledger at submit; on a loaded machine the webhook may already have landed too.
    const [recorded] = await s.list();
    expect(recorded).toMatchObject({ generation_id: id, model: 'image-fast', params: { prompt: 'a lighthouse at dusk' }, available: true });

    const done = await settled(s, id);
    expect(done).toMatchObject({ status: 'completed', available: true, credits_used: expect.any(Number) });
    expect(done.output_url).toMatch(/\/api\/v1\/output\//);
    const image = await fetch(done.output_url!);
    expect(image.headers.get('content-type')).toMatch(/^image\//);

    // The emulator logs the attempt once it has read the answer, which can be just after the app stored the event.
    const deliveries = await eventually(async () => {
      const rows = await s.deliveries(id);
      return rows.length > 0 && rows[0]!.outcome !== 'pending' && rows;
    });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ attempt: 1, status: 200, outcome: 'delivered', url: s.webhookUrl });
  });

  it('lists newest first', async () => {
    const s = await stack();
    const a = await s.submit({ model: 'image-fast', prompt: 'first' });
    const b = await s.submit({ model: 'image-fast', prompt: 'second' });
    const ids = (await s.list()).map((g) => g.generation_id);
    expect(ids).toEqual([b.body.generation_id, a.body.generation_id]);
  });

  it('a failed generation is shown with its error', async () => {
    const s = await stack();
    const { body } = await s.submit({ model: 'image-fast', prompt: 'a cat [[fail:model_unavailable]]' });
    const failed = await settled(s, body.generation_id);
    expect(failed).toMatchObject({
      status: 'failed',
      output_url: null,
      error: { code: 'model_unavailable' },
      credits_used: 0,
    });
    // The sample's @OnGenerationEvent('generation.failed') tells operators why, on one line.
    const lines = () => s.logs.filter((l) => l.startsWith('warn GenerationWebhooks:'));
    const [why, ...more] = await eventually(async () => lines().length > 0 && lines());
    expect(more).toEqual([]);
    expect(why).toMatch(new RegExp(`^warn GenerationWebhooks: ${body.generation_id} failed: model_unavailable [^\\p{Cc}]*$`, 'u'));
  });

  it('a duplicate or replayed delivery changes nothing; a bad signature is refused with 401', async () => {
    const s = await stack();
    const { body } = await s.submit({ model: 'image-fast', prompt: 'duplicates' });
    const done = await settled(s, body.generation_id);
    const before = await s.list();

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

    // A signed failed body replayed under a completed header: refused, the header is not signed.
    expect((await send(await signWebhook(raw, SECRET))).status).toBe(400);
    expect((await send(await signWebhook(raw, 'whsec_attacker'))).status).toBe(401);
    expect((await send('sha256=' + '0'.repeat(64), 'generation.failed')).status).toBe(401);
    expect(await s.list()).toEqual(before);
  });

  it('rotation: endpoints signing with the old and the new secret are both accepted, the event recorded once', async () => {
    const s = await stack({ appSecrets: [OLD_SECRET, SECRET], endpointSecrets: [OLD_SECRET, SECRET] });
    const { body } = await s.submit({ model: 'image-fast', prompt: 'rotation' });
    await settled(s, body.generation_id);
    const deliveries = await eventually(async () => {
      const rows = await s.deliveries(body.generation_id);
      return rows.length === 2 && rows;
    });
    expect(deliveries.map((d) => d.status)).toEqual([200, 200]);
    expect((await s.list())[0]).toMatchObject({ generation_id: body.generation_id, status: 'completed' });
  });

  it('an app still on the old secret alone refuses the new one with a 4xx, which the service does not retry', async () => {
    const s = await stack({ appSecrets: [OLD_SECRET], endpointSecrets: [SECRET] });
    const { body } = await s.submit({ model: 'image-fast', prompt: 'stale secret' });
    const [row] = await eventually(async () => {
      const rows = await s.deliveries(body.generation_id);
      return rows.length > 0 && rows[0]!.outcome !== 'pending' && rows;
    });
    expect(row).toMatchObject({ attempt: 1, status: 401, outcome: 'rejected' });
    // Not lost: the ledger's reconciler reads its status (receiver rule 8).
    expect(await settled(s, body.generation_id)).toMatchObject({ status: 'completed' });
  });

  it("when no webhook comes, the ledger's reconciler finds the result (receiver rule 8)", async () => {
    const s = await stack({ endpointSecrets: [] });
    const { body } = await s.submit({ model: 'image-fast', prompt: 'no webhook' });
    const done = await settled(s, body.generation_id);
    expect(done).toMatchObject({ status: 'completed', available: true });
    expect(done.output_urls).toHaveLength(1);
    expect(await s.deliveries(body.generation_id)).toEqual([]);
  });

  it('a restart loses nothing, and a delivery after it is still a duplicate', async () => {
    const s = await stack();
    const { body } = await s.submit({ model: 'image-fast', prompt: 'survives restarts' });
    await settled(s, body.generation_id);
    const snapshot = (await s.list()).map(facts);

    await s.restart();
    expect((await s.list()).map(facts)).toEqual(snapshot);
    // The same event delivered again after the restart (the in-memory de-dup is gone): SQLite still knows it.
    const raw = JSON.stringify({
      generation_id: body.generation_id,
      status: 'completed',
      model: 'image-fast',
      output_url: 'http://127.0.0.1/x.png',
      output_urls: ['http://127.0.0.1/x.png'],
      credits_charged: 999,
      duration_ms: 1,
      completed_at: '2030-01-01T00:00:00.000Z',
    });
    const res = await fetch(s.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-signature': await signWebhook(raw, SECRET),
        'x-service-event': 'generation.completed',
      },
      body: raw,
    });
    expect(res.status).toBe(200);
    expect((await s.list()).map(facts)).toEqual(snapshot);
  });

  it("the browser's Idempotency-Key is passed through: the same submit twice is one generation, billed once", async () => {
    const s = await stack();
    const headers = { 'idempotency-key': 'b7c1f0e2-0000-4000-8000-000000000001' };
    const first = await s.submit({ model: 'image-fast', prompt: 'double click' }, headers);
    const second = await s.submit({ model: 'image-fast', prompt: 'double click' }, headers);
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(second.body.generation_id).toBe(first.body.generation_id);
    expect(await s.list()).toHaveLength(1);
    const credits = await s.json('/api/credits');
    expect(credits.body.spent_this_cycle).toBe(first.body.credits_estimate);
  });

  it('params the page may not send are refused with 422 before reaching the service', async () => {
    const s = await stack();
    const res = await s.submit({ model: 'image-fast', prompt: 'x', estimate: true });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'INVALID_BODY' });
    expect(await s.list()).toEqual([]);
  });

  it('submit errors come back with the spec error body', async () => {
    const s = await stack();
    const blocked = await s.submit({ model: 'image-fast', prompt: 'nope [[blocked]]' });
    expect(blocked.status).toBe(400);
    expect(blocked.body).toMatchObject({ error: 'CONTENT_POLICY_VIOLATION', request_id: expect.stringMatching(/^req_/) });
    expect(await s.list()).toEqual([]);
  });

  it('no answer the app sends carries the API key or a webhook secret', async () => {
    const s = await stack({ appSecrets: [OLD_SECRET, SECRET] });
    const submitted = await s.submit({ model: 'image-fast', prompt: 'secrets' });
    await settled(s, submitted.body.generation_id);
    const answers = await Promise.all([
      fetch(s.origin + '/'),
      fetch(s.origin + '/api/generations'),
      fetch(s.origin + '/api/models'),
      fetch(s.origin + '/api/credits'),
      fetch(`${s.origin}/api/generations/${submitted.body.generation_id}`),
      fetch(s.origin + '/api/generations/not-a-generation'),
      s.submit({ model: 'image-fast', prompt: 'x [[blocked]]' }).then(({ body }) => new Response(JSON.stringify(body))),
      fetch(s.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': 'sha256=00' },
        body: '{}',
      }),
    ]);
    for (const res of answers) {
      const text = [...res.headers].flat().join('\n') + (await res.text());
      for (const secret of [KEY, SECRET, OLD_SECRET]) expect(text).not.toContain(secret);
    }
  });

  it("each browser is its own user: another's generation is 404 on read and stream, and not in its list", async () => {
    const s = await stack();
    const { body } = await s.submit({ model: 'image-fast', prompt: 'mine alone' });
    const id = body.generation_id as string;
    const other = s.browser();
    for (const path of [`/api/generations/${id}`, `/api/generations/${id}/events`]) {
      const res = await other.json(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.body).toMatchObject({ error: 'NOT_FOUND', message: expect.any(String), next: expect.any(String) });
    }
    expect(await other.list()).toEqual([]);
    expect(other.cookie()).toBeDefined();
    expect(other.cookie()).not.toBe(s.cookie());

    // Its own user reads it, and follows it live to the end.
    expect((await s.json(`/api/generations/${id}`)).body).toMatchObject({ generation_id: id, model: 'image-fast' });
    const stream = await fetch(`${s.origin}/api/generations/${id}/events`, { headers: { cookie: s.cookie()! } });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const statuses = (await stream.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)).status);
    expect(statuses.at(-1)).toBe('completed');
    expect((await s.list()).map((g) => g.generation_id)).toEqual([id]);
  });

  it('first contact sets the user cookie: HttpOnly, SameSite=Lax, not Secure over plain HTTP; never on a webhook answer', async () => {
    const s = await stack();
    const res = await fetch(`${s.origin}/`);
    const [cookie, ...more] = res.headers.getSetCookie();
    expect(more).toEqual([]);
    expect(cookie).toMatch(/^mediagen_user=[0-9a-f-]{36};/);
    expect(cookie).toMatch(/; HttpOnly(;|$)/);
    expect(cookie).toMatch(/; SameSite=Lax(;|$)/);
    expect(cookie).not.toMatch(/Secure/);
    // Sent back, it is kept: no new cookie.
    const again = await fetch(`${s.origin}/api/credits`, { headers: { cookie: cookie!.split(';')[0]! } });
    expect(again.headers.getSetCookie()).toEqual([]);
    // A forged value is not a user: a fresh id replaces it.
    const forged = await fetch(`${s.origin}/api/credits`, { headers: { cookie: 'mediagen_user=admin' } });
    expect(forged.headers.getSetCookie()[0]).toMatch(/^mediagen_user=[0-9a-f-]{36};/);
    const delivery = await fetch(s.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(delivery.status).toBe(401);
    expect(delivery.headers.getSetCookie()).toEqual([]);
  });

  it('over HTTPS the user cookie is Secure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nest-sample-tls-'));
    try {
      const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
      execFileSync(
        'openssl',
        ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
        ]),
        { stdio: 'ignore' },
      );
      const s = await stack({ endpointSecrets: [], https: { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') } });
      const cookies = await new Promise<string[]>((resolve, reject) => {
        get(`${s.origin}/`, { rejectUnauthorized: false }, (res) => {
          res.resume();
          resolve(res.headers['set-cookie'] ?? []);
        }).on('error', reject);
      });
      expect(cookies).toHaveLength(1);
      expect(cookies[0]).toMatch(/^mediagen_user=[0-9a-f-]{36};.*; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('only JSON may submit: a plain HTML form (or text) post is refused 422 and bills nothing', async () => {
    const s = await stack();
    const before = (await s.json('/api/credits')).body.balance;
    for (const [contentType, body] of [
      ['application/x-www-form-urlencoded', 'model=image-fast&prompt=free+credits'],
      ['text/plain', JSON.stringify({ model: 'image-fast', prompt: 'free credits' })],
    ]) {
      const res = await s.json('/api/generations', { method: 'POST', headers: { 'content-type': contentType! }, body });
      expect([contentType, res.status]).toEqual([contentType, 422]);
      expect(res.body).toMatchObject({ error: 'INVALID_BODY', details: { field: 'Content-Type' } });
    }
    expect(await s.list()).toEqual([]);
    expect((await s.json('/api/credits')).body.balance).toBe(before);
  });

  it("a malformed Idempotency-Key is the browser's error: 422 naming the header, never a 500", async () => {
    const s = await stack();
    for (const key of ['k\u00ff\u00fe', 'k'.repeat(256)]) {
      const res = await s.submit({ model: 'image-fast', prompt: 'bad key' }, { 'idempotency-key': key });
      expect([key.slice(0, 4), res.status]).toEqual([key.slice(0, 4), 422]);
      expect(res.body).toMatchObject({ error: 'INVALID_BODY', details: { field: 'Idempotency-Key' } });
    }
    expect(await s.list()).toEqual([]);
  });

  it('serves the page with no external assets', async () => {
    const s = await stack();
    const res = await fetch(s.origin + '/');
    const html = await res.text();
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(html).toContain('<form');
    expect(html).not.toMatch(/(src|href)=["']https?:/);
  });
});

describe('nest-sample: earlier generations after restarts and link expiry (the ledger)', () => {
  const THREE_DAYS_MS = 3 * 24 * 3600_000;

  it('after an app restart on the same data dir, an earlier generation is listed with a working link', async () => {
    const s = await stack();
    const { body } = await s.submit({ model: 'image-fast', prompt: 'before the restart' });
    const done = await settled(s, body.generation_id);

    await s.restart();
    const [again] = await s.list();
    expect(again).toMatchObject({ generation_id: done.generation_id, status: 'completed', available: true });
    const image = await fetch(again!.output_url!);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toMatch(/^image\//);
  });

  it('when the service forgot it too (emulator restarted), it is listed as no longer available, never with a dead link', async () => {
    const s = await stack();
    const { body } = await s.submit({ model: 'image-fast', prompt: 'the service forgets' });
    const done = await settled(s, body.generation_id);

    await s.stopApp();
    await s.restartEmulator();
    // The link from before is dead now: this is what the page must not show.
    expect(await statusOf(done.output_url!)).not.toBe(200);
    await s.startApp();

    const [gone] = await s.list();
    expect(gone).toMatchObject({
      generation_id: done.generation_id,
      status: 'completed',
      available: false,
      output_url: null,
      output_urls: null,
    });
    // And it stays so (the ledger recorded it), for every later read.
    expect((await s.list())[0]).toMatchObject({ available: false, output_url: null });
  });

  it('a link past its 3-day expiry is signed afresh on read: the listed link works', async () => {
    const s = await stack();
    const { body } = await s.submit({ model: 'image-fast', prompt: 'three days later' });
    const done = await settled(s, body.generation_id);
    expect((await fetch(done.output_url!)).status).toBe(200);

    await s.advanceClock(THREE_DAYS_MS + 60_000);
    // The link signed at completion has expired on the service's clock.
    expect((await fetch(done.output_url!)).status).not.toBe(200);

    const [later] = await s.list();
    expect(later).toMatchObject({ generation_id: done.generation_id, status: 'completed', available: true });
    expect(later!.output_url).not.toBe(done.output_url);
    expect((await fetch(later!.output_url!)).status).toBe(200);
    // The same through a restart: the re-signed link was kept.
    await s.restart();
    expect((await fetch((await s.list())[0]!.output_url!)).status).toBe(200);
  });
});

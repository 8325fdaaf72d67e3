import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerError } from '../src/index';
import { createGenerationLedger, type GenerationLedgerOptions, type LedgerGeneration, MemoryGenerationStore } from '../src/ledger';
import { parseOutputLink } from '../src/links/output-link';
import { createWebhookHandler } from '../src/server';
import { ledgerEmulator, manualClock } from './support/ledger-emulator';

type Emu = Awaited<ReturnType<typeof ledgerEmulator>>;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setup(extra: Record<string, unknown> = {}) {
  const emu = await ledgerEmulator(extra);
  closers.push(() => emu.close());
  return emu;
}

/** A ledger on `emu` with a hand-moved clock, recording what `onTerminal` was handed. */
function ledgerOn(emu: Emu, over: Partial<GenerationLedgerOptions> = {}) {
  const clock = manualClock();
  const handed: LedgerGeneration[] = [];
  const errors: unknown[] = [];
  const store = over.store ?? new MemoryGenerationStore();
  const ledger = createGenerationLedger({
    client: emu.client(),
    store,
    now: clock.now,
    onTerminal: (g) => void handed.push(g),
    onError: (e) => void errors.push(e),
    ...over,
  });
  return { ledger, store, clock, handed, errors };
}

/** Reconciler passes, the ledger's clock moved one poll interval each time, until `done`. */
async function reconcileUntil(l: ReturnType<typeof ledgerOn>, done: () => boolean | Promise<boolean>, passes = 200) {
  for (let i = 0; i < passes && !(await done()); i++) {
    l.clock.advance(4_000);
    await l.ledger.reconcile();
  }
  expect(await done()).toBe(true);
}

describe('createGenerationLedger: submit', () => {
  it('records the intent, sends it with its key, records the id; a resend of the same key returns it unbilled', async () => {
    const emu = await setup();
    const l = ledgerOn(emu);
    const g = await l.ledger.submit('alice', { model: 'image-fast', prompt: 'a fox' }, { idempotencyKey: 'click-1' });
    expect(g).toMatchObject({ status: 'pending', idempotency_key: 'click-1', model: 'image-fast', submitting: false, available: true });
    expect(g.generation_id).toMatch(/^[0-9a-f-]{36}$/);
    const again = await l.ledger.submit('alice', { model: 'image-fast', prompt: 'a fox' }, { idempotencyKey: 'click-1' });
    expect(again.generation_id).toBe(g.generation_id);
    expect(await emu.reserves()).toEqual([g.generation_id]);
    // Another owner, or another body, with the same key: refused, as the service refuses a reused key.
    await expect(l.ledger.submit('bob', { model: 'image-fast', prompt: 'a fox' }, { idempotencyKey: 'click-1' })).rejects.toMatchObject({
      status: 422,
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    await expect(l.ledger.submit('alice', { model: 'image-fast', prompt: 'a cat' }, { idempotencyKey: 'click-1' })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
  });

  it('the 202 lost after the service billed it: reconcile() resends the same key and gets the original generation, billed once', async () => {
    const emu = await setup();
    const l = ledgerOn(emu, { client: emu.client({ maxRetries: 0 }) });
    await emu.fault({ endpoint: 'generate', status: 500, when: 'after' });
    const error = await l.ledger.submit('alice', { model: 'image-fast', prompt: 'lost answer' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    const [intent] = (await l.ledger.list('alice')).generations;
    expect(intent).toMatchObject({ submitting: true, generation_id: null, status: 'pending' });
    const billed = await emu.reserves();
    expect(billed).toHaveLength(1);
    await reconcileUntil(l, async () => (await l.ledger.list('alice')).generations[0]?.status === 'completed');
    const [done] = (await l.ledger.list('alice')).generations;
    expect(done?.generation_id).toBe(billed[0]);
    expect(await emu.reserves()).toEqual(billed);
    expect(l.handed.map((h) => h.generation_id)).toEqual(billed);
  });

  it('a crash between the write of the intent and the call: the intent is sent by reconcile(), once', async () => {
    const emu = await setup();
    const store = new MemoryGenerationStore();
    // The intent written by an instance that died before sending it (its lease lapses).
    const dead = ledgerOn(emu, { store, client: emu.client({ maxRetries: 0 }) });
    await emu.fault({ endpoint: 'generate', status: 500, when: 'before' });
    await dead.ledger.submit('alice', { model: 'image-fast', prompt: 'never sent' }, { idempotencyKey: 'k-never' }).catch(() => {});
    expect(await emu.reserves()).toEqual([]);
    const l = ledgerOn(emu, { store });
    await reconcileUntil(l, () => l.handed.length === 1);
    expect(l.handed[0]).toMatchObject({ status: 'completed', idempotency_key: 'k-never' });
    expect(await emu.reserves()).toEqual([l.handed[0]?.generation_id]);
  });

  it('a permanent refusal ends the intent failed with the service code, handed over once, nothing billed', async () => {
    const emu = await setup();
    const l = ledgerOn(emu);
    await expect(l.ledger.submit('alice', { model: 'image-fast', prompt: 'x [[blocked]]' })).rejects.toMatchObject({
      code: 'CONTENT_POLICY_VIOLATION',
    });
    const [refused] = (await l.ledger.list('alice')).generations;
    expect(refused).toMatchObject({ status: 'failed', generation_id: null, error: { code: 'CONTENT_POLICY_VIOLATION', retryable: false } });
    await l.ledger.reconcile();
    expect(l.handed).toHaveLength(1);
    expect(await emu.reserves()).toEqual([]);
  });
});

describe('createGenerationLedger: results from every source', () => {
  it('webhook, polls and wait() together: each terminal state handed over once', async () => {
    const handed: LedgerGeneration[] = [];
    let ledger!: ReturnType<typeof createGenerationLedger>;
    const heard = new Set<string>();
    let onBoth!: () => void;
    const bothHeard = new Promise<void>((r) => (onBoth = r));
    const receiver = createWebhookHandler({
      secrets: 'whsec_ledger',
      onEvent: async (event) => {
        await ledger.applyEvent(event);
        heard.add(event.data.generation_id);
        if (heard.size === 2) onBoth();
      },
    });
    const server: Server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const answer = await receiver(
        new Request('http://local/webhooks', {
          method: 'POST',
          headers: req.headers as Record<string, string>,
          body: Buffer.concat(chunks),
        }),
      );
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => server.close(r)));
    const port = (server.address() as AddressInfo).port;
    const emu = await setup({ webhooks: [{ url: `http://127.0.0.1:${port}/webhooks`, secret: 'whsec_ledger' }] });
    const l = ledgerOn(emu, { onTerminal: (g) => void handed.push(g) });
    ledger = l.ledger;
    const ok = await ledger.submit('alice', { model: 'image-fast', prompt: 'fine' });
    const bad = await ledger.submit('alice', { model: 'image-fast', prompt: 'x [[fail:model_unavailable]]' });
    const [waited] = await Promise.all([
      ledger.wait('alice', ok.generation_id as string),
      ledger.wait('alice', bad.generation_id as string),
    ]);
    expect(waited.status).toBe('completed');
    // Both webhooks applied (whether before or after the waits ended).
    await bothHeard;
    await reconcileUntil(l, () => handed.length >= 2);
    await l.ledger.reconcile();
    expect(handed.map((h) => [h.generation_id, h.status]).sort()).toEqual(
      [
        [ok.generation_id, 'completed'],
        [bad.generation_id, 'failed'],
      ].sort(),
    );
    expect((await ledger.get('alice', bad.generation_id as string))?.error).toMatchObject({ code: 'model_unavailable', retryable: true });
  });

  it('a stale poll after the terminal webhook changes nothing', async () => {
    const emu = await setup();
    const l = ledgerOn(emu);
    const g = await l.ledger.submit('alice', { model: 'image-fast', prompt: 'order' });
    const id = g.generation_id as string;
    await emu.settled(id);
    const done = await emu.client().generations.get(id);
    await l.ledger.apply(done);
    await l.ledger.apply({ ...done, status: 'processing', output_url: null, output_urls: null });
    await l.ledger.apply({ ...done, status: 'failed' });
    expect((await l.ledger.get('alice', id))?.status).toBe('completed');
    expect(l.handed).toHaveLength(1);
  });
});

describe('createGenerationLedger: following', () => {
  it('polls each unfinished generation at most once per contract interval, until terminal', async () => {
    const emu = await ledgerEmulator();
    closers.push(() => emu.close());
    const l = ledgerOn(emu);
    const image = await l.ledger.submit('alice', { model: 'image-fast', prompt: 'img' });
    const video = await l.ledger.submit('alice', { model: 'video-standard', prompt: 'vid', duration: 5 });
    emu.reads.length = 0;
    // Passes with the clock standing still: only what is due is read, and then not again.
    await l.ledger.reconcile();
    await l.ledger.reconcile();
    const byId = (id: string | null) => emu.reads.filter((r) => r === id).length;
    expect(byId(image.generation_id)).toBe(0);
    l.clock.advance(2_000);
    await l.ledger.reconcile();
    await l.ledger.reconcile();
    expect(byId(image.generation_id)).toBe(1);
    expect(byId(video.generation_id)).toBe(0);
    l.clock.advance(2_000);
    await l.ledger.reconcile();
    expect(byId(video.generation_id)).toBe(1);
    expect(byId(image.generation_id)).toBeLessThanOrEqual(2);
    await emu.settled(image.generation_id as string);
    await emu.settled(video.generation_id as string);
    await reconcileUntil(l, () => l.handed.length === 2);
    const before = emu.reads.length;
    l.clock.advance(60_000);
    await l.ledger.reconcile();
    expect(emu.reads.length).toBe(before);
  });

  it('two instances on one store: a generation is polled by one instance per interval, handed over once', async () => {
    const emu = await setup();
    const store = new MemoryGenerationStore();
    const clock = manualClock();
    const handed: string[] = [];
    const make = (instanceId: string) =>
      createGenerationLedger({
        client: emu.client(),
        store,
        now: clock.now,
        instanceId,
        onTerminal: (g) => void handed.push(g.generation_id as string),
      });
    const [a, b] = [make('a'), make('b')];
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await a.submit(`user-${i % 2}`, { model: 'image-fast', prompt: `p${i}` })).generation_id as string);
    emu.reads.length = 0;
    clock.advance(2_000);
    const [ra, rb] = await Promise.all([a.reconcile(), b.reconcile()]);
    expect(ra.followed + rb.followed).toBe(6);
    expect(emu.reads.length).toBe(6);
    expect(new Set(emu.reads).size).toBe(6);
    for (const id of ids) await emu.settled(id);
    for (let i = 0; i < 50 && handed.length < 6; i++) {
      clock.advance(2_000);
      await Promise.all([a.reconcile(), b.reconcile()]);
    }
    expect(handed.sort()).toEqual([...ids].sort());
  });

  it('two overlapping passes on one instance hand a terminal state over once (a lease is re-entrant for its holder)', async () => {
    const emu = await setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const calls: string[] = [];
    const l = ledgerOn(emu, {
      onTerminal: async (g) => {
        calls.push(g.generation_id as string);
        await gate;
      },
    });
    const g = await l.ledger.submit('alice', { model: 'image-fast', prompt: 'overlap' });
    await emu.settled(g.generation_id as string);
    const done = await emu.client().generations.get(g.generation_id as string);
    // Recorded terminal by a process that died before handing it over: left for the reconciler.
    const record = (await l.store.getByGenerationId(g.generation_id as string))!;
    await l.store.update(record.key, record.version, { status: 'completed', generation: done, next_check_at: 0 });
    const passes = Promise.all([l.ledger.reconcile(), l.ledger.reconcile(), l.ledger.reconcile()]);
    for (let i = 0; i < 100 && calls.length === 0; i++) await new Promise((r) => setImmediate(r));
    release();
    await passes;
    await l.ledger.reconcile();
    expect(calls).toEqual([g.generation_id]);
  });

  it('start(): after a full batch the next pass starts at once, otherwise after tickMs', async () => {
    const emu = await setup();
    const waits: number[] = [];
    const timers: (() => void)[] = [];
    const l = ledgerOn(emu, {
      batchSize: 2,
      tickMs: 700,
      setTimeout: (cb, ms) => {
        waits.push(ms);
        timers.push(cb);
      },
      clearTimeout: () => {},
    });
    for (let i = 0; i < 3; i++) await l.ledger.submit('alice', { model: 'image-fast', prompt: `batch ${i}` });
    l.clock.advance(2_000);
    l.ledger.start();
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < 1_000 && waits.length === pass; i++) await new Promise((r) => setImmediate(r));
      if (pass === 0) timers.shift()?.();
    }
    await l.ledger.stop();
    expect(waits).toEqual([0, 700]);
  });

  it('start()/stop() run passes on the injected timers', async () => {
    const emu = await setup();
    const timers: (() => void)[] = [];
    const l = ledgerOn(emu, { setTimeout: (cb) => timers.push(cb), clearTimeout: () => {} });
    const g = await l.ledger.submit('alice', { model: 'image-fast', prompt: 'timers' });
    await emu.settled(g.generation_id as string);
    l.ledger.start();
    for (let i = 0; i < 100 && l.handed.length === 0; i++) {
      await new Promise((r) => setImmediate(r));
      const next = timers.shift();
      if (next) {
        l.clock.advance(2_000);
        next();
      }
    }
    await l.ledger.stop();
    expect(l.handed.map((h) => h.generation_id)).toEqual([g.generation_id]);
  });
});

describe('createGenerationLedger: reads', () => {
  it('lists per owner, newest first, in pages; reads by id answer only the owner', async () => {
    const emu = await setup();
    const l = ledgerOn(emu);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      l.clock.advance(1);
      ids.push((await l.ledger.submit('alice', { model: 'image-fast', prompt: `n${i}` })).generation_id as string);
    }
    await l.ledger.submit('bob', { model: 'image-fast', prompt: 'bob' });
    const first = await l.ledger.list('alice', { limit: 2 });
    const second = await l.ledger.list('alice', { limit: 2, cursor: first.next_cursor });
    const third = await l.ledger.list('alice', { limit: 2, cursor: second.next_cursor });
    expect([...first.generations, ...second.generations, ...third.generations].map((g) => g.generation_id)).toEqual([...ids].reverse());
    expect(third.next_cursor).toBeNull();
    expect(await l.ledger.get('bob', ids[0] as string)).toBeUndefined();
    expect((await l.ledger.get('alice', ids[0] as string))?.generation_id).toBe(ids[0]);
    await expect(l.ledger.list('alice', { cursor: 'not a cursor' })).rejects.toMatchObject({
      code: 'INVALID_BODY',
      status: 422,
      body: { details: { field: 'cursor' } },
    });
  });

  it('never serves an expired link: a read near expiry signs afresh; a generation the service forgot reads unavailable', async () => {
    const emu = await setup();
    const l = ledgerOn(emu);
    const g = await l.ledger.submit('alice', { model: 'image-fast', prompt: 'links' });
    const id = g.generation_id as string;
    await emu.settled(id);
    l.clock.set(await emu.now());
    await reconcileUntil(l, () => l.handed.length === 1);
    const fresh = (await l.ledger.get('alice', id)) as LedgerGeneration;
    const first = parseOutputLink(fresh.output_url as string).expiresAt.getTime();
    // Three days on, on both clocks: the stored link has expired.
    await emu.advance(3 * 24 * 3_600_000);
    l.clock.set(await emu.now());
    emu.reads.length = 0;
    const later = (await l.ledger.get('alice', id)) as LedgerGeneration;
    expect(emu.reads).toEqual([id]);
    const expiry = parseOutputLink(later.output_url as string).expiresAt.getTime();
    expect(expiry).toBeGreaterThan(l.clock.now());
    expect(expiry).toBeGreaterThan(first);
    const bytes = await fetch(new URL(later.output_url as string, emu.url));
    expect(bytes.status).toBe(200);
    // The emulator restarted (its records gone): the next refresh finds 404.
    await emu.reset();
    l.clock.advance(3 * 24 * 3_600_000);
    const gone = (await l.ledger.get('alice', id)) as LedgerGeneration;
    expect(gone).toMatchObject({ status: 'completed', available: false, output_url: null, output_urls: null });
    expect((await l.ledger.list('alice')).generations[0]).toMatchObject({ available: false, output_url: null });
  });

  it('an unfinished generation the service forgot ends failed and unavailable, handed over once', async () => {
    const emu = await setup();
    const l = ledgerOn(emu);
    const g = await l.ledger.submit('alice', { model: 'video-standard', prompt: 'forgotten', duration: 5 });
    await emu.reset();
    await reconcileUntil(l, () => l.handed.length === 1);
    expect(l.handed[0]).toMatchObject({ generation_id: g.generation_id, status: 'failed', available: false, error: { code: 'NOT_FOUND' } });
  });

  it('persistOutputs copies the outputs to the sink before the handler sees them, and reads serve the copies', async () => {
    const emu = await setup();
    const saved = new Map<string, Uint8Array>();
    const l = ledgerOn(emu, {
      persistOutputs: {
        async put(name, body) {
          // The output comes as a stream (never held whole by the ledger); this sink keeps it in memory.
          saved.set(name, new Uint8Array(await new Response(body).arrayBuffer()));
          return `https://files.example/${name}`;
        },
      },
    });
    const g = await l.ledger.submit('alice', { model: 'image-fast', prompt: 'keep', number_results: 2 });
    await emu.settled(g.generation_id as string);
    await reconcileUntil(l, () => l.handed.length === 1);
    expect(saved.size).toBe(2);
    expect(l.handed[0]?.output_urls).toEqual([...saved.keys()].map((k) => `https://files.example/${k}`));
    await emu.reset();
    emu.reads.length = 0;
    l.clock.advance(10 * 24 * 3_600_000);
    expect((await l.ledger.get('alice', g.generation_id as string))?.output_urls).toEqual(l.handed[0]?.output_urls);
    expect(emu.reads).toEqual([]);
  });
});

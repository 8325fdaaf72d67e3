/**
 * `[[hold]]` in a prompt: the generation stays `processing` past its render time until the test
 * releases it (`faults.release`), so a test that needs a generation in flight (a stream cut
 * mid-way, a crash before the end) orders it by events instead of racing the render timer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type InProcessEmulator } from '../src/index.js';
import { KEY } from './helpers.js';

const HOOK = 'http://app.test/hook';

describe('[[hold]]: a generation kept in flight until released', () => {
  let emu: InProcessEmulator | undefined;
  let delivered: string[] = [];
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
    delivered = [];
  });
  // A timeScale this small puts every render time under 20 µs: any request after the submit is past it.
  const start = () => {
    emu = createEmulator({
      config: {
        timeScale: 1e-6,
        accounts: [{ id: 'acct_unit', tier: 'pro', balance: 1000, keys: [{ key: KEY }], webhooks: [{ url: HOOK, secret: 'whsec_hold' }] }],
      },
      webhookFetch: async (request) => {
        delivered.push(((await request.json()) as { status: string }).status);
        return new Response(null, { status: 200 });
      },
    });
    return emu;
  };
  const call = async (e: InProcessEmulator, path: string, body?: unknown) => {
    const r = await e.fetch(`${e.url}/api/v1${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return (await r.json()) as Record<string, unknown>;
  };
  const submit = (e: InProcessEmulator, prompt: string) => call(e, '/generate', { model: 'image-fast', prompt });
  const statusOf = async (e: InProcessEmulator, id: unknown) => (await call(e, `/generations/${id}`)).status;

  it('is listed as held (render, its submit request id, its generation id) and reads processing until released', async () => {
    const e = start();
    const accepted = await submit(e, 'a lighthouse [[hold]]');
    expect(await e.faults.held({ min: 1 })).toEqual([
      { endpoint: 'render', request_id: accepted.request_id, generation_id: accepted.generation_id },
    ]);
    for (let i = 0; i < 3; i++) expect(await statusOf(e, accepted.generation_id)).toBe('processing');
    expect(delivered).toEqual([]);
    expect((await e.accounts.get('acct_unit')).in_flight).toBe(1);

    expect(await e.faults.release()).toBe(1);
    const rows = await e.deliveries.settled(accepted.generation_id as string);
    expect(rows.map((r) => r.status)).toEqual([200]);
    expect(await statusOf(e, accepted.generation_id)).toBe('completed');
    expect(delivered).toEqual(['completed']);
    expect(await e.faults.held()).toEqual([]);
  });

  it('holds only its own generation: another one finishes meanwhile', async () => {
    const e = start();
    const held = await submit(e, 'kept [[hold]]');
    const free = await submit(e, 'free');
    await e.deliveries.settled(free.generation_id as string);
    expect(await statusOf(e, free.generation_id)).toBe('completed');
    expect(await statusOf(e, held.generation_id)).toBe('processing');
    await e.faults.release();
    await e.deliveries.settled(held.generation_id as string);
    expect(await statusOf(e, held.generation_id)).toBe('completed');
  });

  it('ends with the fate its other markers give: [[fail:CODE]] fails and refunds after the release', async () => {
    const e = start();
    const accepted = await submit(e, 'x [[hold]] [[fail:model_unavailable]]');
    await e.faults.held({ min: 1 });
    expect(await statusOf(e, accepted.generation_id)).toBe('processing');
    const before = await e.accounts.get('acct_unit');
    expect(before.ledger.map((row) => row.type)).not.toContain('refund');
    await e.faults.release();
    await e.deliveries.settled(accepted.generation_id as string);
    const status = await call(e, `/generations/${accepted.generation_id}`);
    expect(status).toMatchObject({ status: 'failed', error: { code: 'model_unavailable' }, credits_used: 0 });
    expect((await e.accounts.get('acct_unit')).ledger.map((row) => row.type)).toContain('refund');
  });

  it('a reset drops it: nothing held, the generation forgotten, nothing delivered', async () => {
    const e = start();
    const accepted = await submit(e, 'x [[hold]]');
    await e.faults.held({ min: 1 });
    await e.reset();
    expect(await e.faults.held()).toEqual([]);
    expect((await call(e, `/generations/${accepted.generation_id}`)).error).toBe('NOT_FOUND');
    expect(delivered).toEqual([]);
  });
});

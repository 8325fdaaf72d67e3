import { afterEach, describe, expect, it } from 'vitest';
import { AbortError, Gate, InvalidRequestError, MediaGenClient, MemoryGateStore } from '../src/index';
import { startFakeService } from './support/fake-service';
import { imageFast } from './support/models';

type Service = Awaited<ReturnType<typeof startFakeService>>;
let service: Service | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

const client = (url: string, store?: MemoryGateStore) =>
  new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: url, maxRetries: 0, gate: new Gate({ store }) });
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('MemoryGateStore', () => {
  it('grants up to the rate and the concurrency, then says how long to wait', () => {
    let now = 1_000;
    const store = new MemoryGateStore({ windowMs: 60_000, now: () => now, pollMs: 100 });
    const limits = { perMinute: 3, maxConcurrent: 2 };
    const a = store.acquire(limits);
    const b = store.acquire(limits);
    expect('token' in a && 'token' in b).toBe(true);
    expect(store.acquire(limits)).toEqual({ waitMs: 100, limit: 'max_concurrent' }); // concurrency full
    store.bind((a as { token: string }).token, 'gen-a');
    store.release((b as { token: string }).token); // a failed submit gives its slot back
    expect(store.inFlight).toBe(1);
    expect('token' in store.acquire(limits)).toBe(true); // third submit of the minute
    store.settle('gen-a');
    now += 10_000;
    expect(store.acquire(limits)).toEqual({ waitMs: 50_000, limit: 'per_minute' }); // rate full until the first hit leaves the window
    now += 50_000;
    expect('token' in store.acquire(limits)).toBe(true);
  });

  it('frees a slot whose end was never seen after its TTL', () => {
    let now = 0;
    const store = new MemoryGateStore({ inFlightTtlMs: 1_000, now: () => now });
    const g = store.acquire({ perMinute: 100, maxConcurrent: 1 });
    store.bind((g as { token: string }).token, 'lost');
    expect('waitMs' in store.acquire({ perMinute: 100, maxConcurrent: 1 })).toBe(true);
    now = 1_001;
    expect(store.inFlight).toBe(0);
  });
});

describe('client gate', () => {
  it('is off by default', async () => {
    service = await startFakeService({ models: [imageFast] });
    const c = new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: service.url });
    expect(c.gate).toBeUndefined();
  });

  it('refuses the earlier option forms (gate: true, a bare store) at construction, not on the first submit', () => {
    for (const gate of [true, new MemoryGateStore()]) {
      expect(() => new MediaGenClient({ apiKey: 'svc_live_test', gate: gate as never })).toThrow(/new Gate\(/);
    }
  });

  it('keeps in-flight generations under max_concurrent: a batch never meets a 429', async () => {
    service = await startFakeService({ models: [imageFast], rateLimit: { per_minute: 100, max_concurrent: 2 } });
    const c = client(service.url, new MemoryGateStore({ pollMs: 20 }));
    const svc = service;
    const submitted: string[] = [];
    const batch = Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const g = await c.generations.create({ model: 'image-fast', prompt: `n${i}` });
        submitted.push(g.generation_id);
        return g;
      }),
    );
    // Complete generations as they come; the client learns it by reading their status.
    const driver = (async () => {
      for (let done = 0; done < 6; ) {
        await tick(10);
        for (const id of submitted.splice(0)) {
          svc.finish(id);
          await c.generations.get(id);
          done++;
        }
      }
    })();
    const results = await batch;
    await driver;
    expect(results).toHaveLength(6);
    expect(svc.state.maxInFlightSeen).toBeLessThanOrEqual(2);
    expect(svc.seen.filter((s) => s.path === '/api/v1/generate')).toHaveLength(6); // no 429 retries
    expect(c.gate!.limits).toMatchObject({ max_concurrent: 2 });
  });

  it('frees a slot when the app settles it (e.g. from a webhook)', async () => {
    service = await startFakeService({ models: [imageFast], rateLimit: { per_minute: 100, max_concurrent: 1 } });
    const store = new MemoryGateStore({ pollMs: 10_000 });
    const c = client(service.url, store);
    const first = await c.generations.create({ model: 'image-fast', prompt: 'a' });
    let secondDone = false;
    const second = c.generations.create({ model: 'image-fast', prompt: 'b' }).then((g) => ((secondDone = true), g));
    await tick(50);
    expect(secondDone).toBe(false);
    service.finish(first.generation_id);
    await c.gate!.settle(first.generation_id); // wakes the waiter at once, long before pollMs
    await expect(second).resolves.toMatchObject({ status: 'pending' });
  });

  it('holds the per-minute rate: the submit over the limit waits for the window', async () => {
    service = await startFakeService({ models: [imageFast], rateLimit: { per_minute: 2, max_concurrent: 10 } });
    // The store's clock is the test's: the third submit is granted only once the clock has moved
    // past the window, whatever the machine's load (no elapsed time is measured).
    let now = 0;
    const store = new MemoryGateStore({ windowMs: 60_000, now: () => now });
    const acquire = store.acquire.bind(store);
    const grantedAt: number[] = [];
    const waits: number[] = [];
    store.acquire = (limits) => {
      const grant = acquire(limits);
      if ('token' in grant) {
        grantedAt.push(now);
        return grant;
      }
      waits.push(grant.waitMs);
      now += grant.waitMs; // the window passes while the gate waits (it then waits 1 ms for real)
      return { waitMs: 1 };
    };
    const c = client(service.url, store);
    await Promise.all([1, 2, 3].map((i) => c.generations.create({ model: 'image-fast', prompt: `r${i}` })));
    expect(service.seen.filter((s) => s.path === '/api/v1/generate')).toHaveLength(3);
    expect(waits).toEqual([60_000]);
    expect(grantedAt).toEqual([0, 0, 60_000]);
  });

  it('gives the slot back when the submit fails', async () => {
    service = await startFakeService({ models: [imageFast], rateLimit: { per_minute: 100, max_concurrent: 1 } });
    const store = new MemoryGateStore();
    const c = client(service.url, store);
    service.state.submitOverride = () => [400, { error: 'CONTENT_POLICY_VIOLATION', message: 'no', next: 'change' }];
    await expect(c.generations.create({ model: 'image-fast', prompt: 'x' })).rejects.toBeInstanceOf(InvalidRequestError);
    expect(store.inFlight).toBe(0);
    service.state.submitOverride = undefined;
    await c.generations.create({ model: 'image-fast', prompt: 'y' });
    expect(store.inFlight).toBe(1);
  });

  it('counts a generation until wait() sees it terminal', async () => {
    service = await startFakeService({ models: [imageFast], rateLimit: { per_minute: 100, max_concurrent: 3 } });
    const store = new MemoryGateStore();
    const c = client(service.url, store);
    const g = await c.generations.create({ model: 'image-fast', prompt: 'x' });
    expect(store.inFlight).toBe(1);
    setTimeout(() => service!.finish(g.generation_id, 'failed'), 30);
    const final = await c.generations.wait(g.generation_id, { intervalMs: 10 });
    expect(final.status).toBe('failed');
    expect(store.inFlight).toBe(0);
  });

  it('reads the limits from the credits response too', async () => {
    service = await startFakeService({ models: [imageFast], rateLimit: { per_minute: 7, max_concurrent: 3 } });
    const c = client(service.url);
    await c.credits.get();
    expect(c.gate!.limits).toMatchObject({ per_minute: 7, max_concurrent: 3 });
  });

  it('stops waiting when the signal aborts', async () => {
    service = await startFakeService({ models: [imageFast], rateLimit: { per_minute: 100, max_concurrent: 1 } });
    const c = client(service.url);
    await c.generations.create({ model: 'image-fast', prompt: 'a' });
    const controller = new AbortController();
    const pending = c.generations.create({ model: 'image-fast', prompt: 'b' }, { signal: controller.signal });
    await tick(20);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(service.count('POST', '/api/v1/generate')).toBe(1);
  });

  it('a create-only caller that never reports an end gets GATE_TIMEOUT naming wait/settle, not a silent stall', async () => {
    service = await startFakeService({ models: [imageFast], rateLimit: { per_minute: 100, max_concurrent: 1 } });
    const c = new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: service.url, maxRetries: 0, gate: new Gate({ maxWaitMs: 300 }) });
    const first = await c.generations.create({ model: 'image-fast', prompt: 'a' });
    const error = await c.generations.create({ model: 'image-fast', prompt: 'b' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'GATE_TIMEOUT', retryable: true, idempotencyKey: expect.any(String) });
    expect((error as Error).message).toMatch(/max_concurrent 1/);
    expect((error as { next: string }).next).toMatch(/generations\.wait\(id\).*gate\.settle\(id\)/);
    // The first one finishes; told so (as a webhook handler would), the gate lets the next submit through.
    service.finish(first.generation_id);
    await c.gate!.settle(first.generation_id);
    await expect(c.generations.create({ model: 'image-fast', prompt: 'c' })).resolves.toMatchObject({ status: 'pending' });
  });
});

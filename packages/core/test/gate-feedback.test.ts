import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, Gate, MediaGenClient, MemoryGateStore, RateLimitError } from '../src/index';
import { startFakeService } from './support/fake-service';
import { imageFast } from './support/models';

type Service = Awaited<ReturnType<typeof startFakeService>>;
let service: Service | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** The memory store, recording what the gate tells it beyond acquire/bind/release/settle. */
class RecordingStore extends MemoryGateStore {
  readonly hits: number[] = [];
  readonly pauses: number[] = [];
  readonly holds: string[] = [];
  override hit(at?: number): void {
    this.hits.push(at ?? Date.now());
    super.hit(at);
  }
  override pause(untilMs: number): void {
    this.pauses.push(untilMs);
    super.pause(untilMs);
  }
  override hold(token: string, holdMs: number): void {
    this.holds.push(token);
    super.hold(token, holdMs);
  }
}

const limits = { perMinute: 100, maxConcurrent: 5 };

describe('gate feedback', () => {
  it('a 429 met by this process pauses the gate for its Retry-After', async () => {
    service = await startFakeService({ models: [imageFast] });
    service.state.submitOverride = () => [429, { error: 'RATE_LIMIT', message: 'slow down', next: 'wait' }];
    const store = new RecordingStore();
    const client = new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: service.url, maxRetries: 0, gate: new Gate({ store }) });
    const before = Date.now();
    await expect(client.generations.create({ model: 'image-fast', prompt: 'x' })).rejects.toBeInstanceOf(RateLimitError);
    expect(store.pauses).toHaveLength(1);
    // No Retry-After header: the spec's 5 s default.
    expect(store.pauses[0]!).toBeGreaterThanOrEqual(before + 5_000);
    const grant = store.acquire(limits);
    expect('waitMs' in grant && grant.waitMs > 4_000).toBe(true);
    expect(store.inFlight).toBe(0); // a refused submit gives its slot back
  });

  it('a submit whose every attempt lost its answer keeps its slot', async () => {
    service = await startFakeService({ models: [imageFast] });
    // The request reaches the service (which creates the generation), then the answer is lost.
    const lossy: typeof fetch = async (input, init) => {
      const response = await globalThis.fetch(input, init);
      if (init?.method === 'POST') {
        await response.text();
        throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
      }
      return response;
    };
    const store = new RecordingStore();
    const client = new MediaGenClient({
      apiKey: 'svc_live_test',
      baseUrl: service.url,
      maxRetries: 0,
      gate: new Gate({ store }),
      fetch: lossy,
    });
    const failure = await client.generations.create({ model: 'image-fast', prompt: 'x' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConnectionError);
    expect(store.holds).toHaveLength(1);
    expect(store.inFlight).toBe(1); // the service may be running it
    expect(service.gens.size).toBe(1); // it was indeed created
  });

  it('a resend with an explicit key reuses the held slot and counts one rate hit', async () => {
    service = await startFakeService({ models: [imageFast] });
    let dropAnswers = true;
    const lossy: typeof fetch = async (input, init) => {
      const response = await globalThis.fetch(input, init);
      if (dropAnswers && init?.method === 'POST') throw new TypeError('fetch failed');
      return response;
    };
    const store = new RecordingStore();
    const client = new MediaGenClient({
      apiKey: 'svc_live_test',
      baseUrl: service.url,
      maxRetries: 0,
      gate: new Gate({ store }),
      fetch: lossy,
    });
    await expect(client.generations.create({ model: 'image-fast', prompt: 'x' }, { idempotencyKey: 'k-1' })).rejects.toBeInstanceOf(
      ConnectionError,
    );
    dropAnswers = false;
    const resent = await client.generations.create({ model: 'image-fast', prompt: 'x' }, { idempotencyKey: 'k-1' });
    expect(store.hits).toHaveLength(2); // the first submit's, and the resend's (no second slot)
    expect(store.inFlight).toBe(1);
    await client.gate!.settle(resent.generation_id);
    expect(store.inFlight).toBe(0);
  });

  it('counts each transport resend of a submit as one rate hit', async () => {
    service = await startFakeService({ models: [imageFast] });
    let failures = 1;
    service.state.submitOverride = () => (failures-- > 0 ? [500, { error: 'INTERNAL_ERROR', message: 'oops', next: 'retry' }] : undefined);
    const store = new RecordingStore();
    const client = new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: service.url, maxRetries: 2, gate: new Gate({ store }) });
    await client.generations.create({ model: 'image-fast', prompt: 'x' });
    expect(service.count('POST', '/api/v1/generate')).toBe(2);
    expect(store.hits).toHaveLength(2); // the first attempt (taken with its slot) and the resend
  });

  it('MemoryGateStore keeps hits in time order when a resend is counted ahead', () => {
    let now = 0;
    const store = new MemoryGateStore({ windowMs: 1_000, now: () => now });
    store.hit(500); // a resend due at 500
    expect('token' in store.acquire({ perMinute: 2, maxConcurrent: 5 })).toBe(true); // a hit at 0
    const full = store.acquire({ perMinute: 2, maxConcurrent: 5 });
    expect(full).toEqual({ waitMs: 1_000, limit: 'per_minute' }); // the oldest (0) leaves the window first
    now = 1_000;
    expect('token' in store.acquire({ perMinute: 2, maxConcurrent: 5 })).toBe(true);
  });
});

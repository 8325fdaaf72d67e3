import { signWebhook } from '@mediagen/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisDedupeStore, RedisStoreError } from '../src/index';
import { startProcess } from './support/process';
import { cleanUp, connection, REDIS_URL, uniquePrefix, wipe } from './support/redis';

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
  await cleanUp();
});

/** A store on its own connection, as each instance of an app has. */
function store(prefix: string, options: { recoveryMs?: number } = {}) {
  const s = new RedisDedupeStore({ redis: connection(), prefix, ...options });
  return s;
}

describe('RedisDedupeStore', () => {
  it('claims once across instances, remembers success, and forgets a failure', async () => {
    const prefix = uniquePrefix('dedupe');
    const [a, b] = [store(prefix), store(prefix)];
    expect(await a.claim('g1:generation.completed', 60_000)).toBe('claimed');
    expect(await b.claim('g1:generation.completed', 60_000)).toBe('in_progress');
    await a.complete('g1:generation.completed', 60_000);
    expect(await b.claim('g1:generation.completed', 60_000)).toBe('seen');

    expect(await b.claim('g2:generation.completed', 60_000)).toBe('claimed');
    await b.release('g2:generation.completed'); // the handler threw: the retry must run it
    expect(await a.claim('g2:generation.completed', 60_000)).toBe('claimed');
    // Each event type is its own key.
    expect(await a.claim('g1:generation.failed', 60_000)).toBe('claimed');
  });

  it("a crashed instance's claim lapses with its lease, and its late release never drops another's claim", async () => {
    const prefix = uniquePrefix('lease');
    const [crashed, survivor] = [store(prefix), store(prefix)];
    // Before its lease ends, the claim holds (a lease far longer than the test), and it lives in
    // Redis for the lease asked, not for some shorter time the next call happens to beat.
    expect(await crashed.claim('g1:generation.completed', 60_000)).toBe('claimed');
    expect(await survivor.claim('g1:generation.completed', 60_000)).toBe('in_progress');
    const left = await connection().pttl(`${prefix}g1:generation.completed`);
    expect(left).toBeGreaterThan(30_000);
    expect(left).toBeLessThanOrEqual(60_000);
    // A short lease lapses: the survivor, asking until Redis has expired the claim, gets it.
    expect(await crashed.claim('g2:generation.completed', 100)).toBe('claimed');
    await expect.poll(() => survivor.claim('g2:generation.completed', 60_000)).toBe('claimed');
    await crashed.release('g2:generation.completed'); // not its claim any more
    expect(await crashed.claim('g2:generation.completed', 60_000)).toBe('in_progress');
  });

  it('refuses claims on every instance with REDIS_DATA_LOST after Redis loses its data', async () => {
    const prefix = uniquePrefix('loss');
    const admin = connection();
    // A recovery window far longer than the test: the refusals below all fall inside it.
    const [a, b] = [store(prefix, { recoveryMs: 60_000 }), store(prefix, { recoveryMs: 60_000 })];
    expect(await a.claim('g1:generation.completed', 60_000)).toBe('claimed');
    await a.complete('g1:generation.completed', 60_000);
    await wipe(admin, prefix); // a restart without persistence: the "done" mark is gone
    // b never saw the old epoch, so it cannot tell; a can, and from then on every instance refuses.
    expect(await b.claim('g1:generation.completed', 60_000)).toBe('claimed');
    const lost = await a.claim('g1:generation.completed', 60_000).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(RedisStoreError);
    expect((lost as RedisStoreError).code).toBe('REDIS_DATA_LOST');
    await expect(b.claim('g3:generation.completed', 60_000)).rejects.toMatchObject({ code: 'REDIS_DATA_LOST' });
    await expect(a.claim('g4:generation.completed', 60_000)).rejects.toMatchObject({ code: 'REDIS_DATA_LOST' });
    // The refusal lasts the window asked, in Redis, not some shorter time these calls happen to beat.
    const left = await admin.pttl(`${prefix}~recovering`);
    expect(left).toBeGreaterThan(30_000);
    expect(left).toBeLessThanOrEqual(60_000);
  });

  it('after a loss of data, refuses claims for the recovery window only', async () => {
    const prefix = uniquePrefix('recovery');
    const admin = connection();
    const [a, b] = [store(prefix, { recoveryMs: 200 }), store(prefix, { recoveryMs: 200 })];
    expect(await a.claim('g1:generation.completed', 60_000)).toBe('claimed');
    await a.complete('g1:generation.completed', 60_000);
    await wipe(admin, prefix);
    // a is first after the loss: its claim starts the new epoch and, in the same script, finds the
    // epoch it saw gone, so the refusal is certain however short the window.
    await expect(a.claim('g1:generation.completed', 60_000)).rejects.toMatchObject({ code: 'REDIS_DATA_LOST' });
    // Asked until Redis has expired the window, claims are taken again, on every instance.
    await expect.poll(() => a.claim('g2:generation.completed', 60_000).catch((e: RedisStoreError) => e.code)).toBe('claimed');
    expect(await b.claim('g3:generation.completed', 60_000)).toBe('claimed');
  });

  it('fails with RedisStoreError in bounded time when Redis is unreachable, naming no credentials', async () => {
    const s = new RedisDedupeStore({ redis: 'redis://user:hunter2@127.0.0.1:1', operationTimeoutMs: 500 });
    stops.push(() => s.close());
    const error = await s.claim('g:generation.completed', 1_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisStoreError);
    expect(JSON.stringify(error) + String(error) + String((error as Error).cause)).not.toContain('hunter2');
  });

  it('any interleaving of claims, completions and releases by two instances runs each event at most once at a time', async () => {
    const prefix = uniquePrefix('prop');
    const stores = [store(prefix), store(prefix)];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ who: fc.integer({ min: 0, max: 1 }), op: fc.constantFrom('claim', 'complete', 'release') }), {
          maxLength: 12,
        }),
        async (ops) => {
          const key = `k${run++}`;
          const holding = [false, false];
          let seen = false;
          for (const { who, op } of ops) {
            const s = stores[who]!;
            if (op === 'claim') {
              const claim = await s.claim(key, 60_000);
              if (claim === 'claimed') {
                expect(holding[1 - who] || seen).toBe(false);
                holding[who] = true;
              } else expect(claim).toBe(seen ? 'seen' : 'in_progress');
            } else if (holding[who]) {
              if (op === 'complete') {
                await s.complete(key, 60_000);
                seen = true;
              } else await s.release(key);
              holding[who] = false;
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('two real processes receiving the same delivery at the same moment', () => {
  it('run the handler once; both answer 2xx', async () => {
    const prefix = uniquePrefix('procs');
    const secret = 'whsec_two_processes';
    const env = { REDIS_URL, PREFIX: prefix, SECRET: secret, HANDLER_MS: '300' };
    const instances = await Promise.all([startProcess('receiver-process.mjs', env), startProcess('receiver-process.mjs', env)]);
    for (const i of instances) stops.push(i.stop);
    const id = crypto.randomUUID();
    const body = JSON.stringify({
      generation_id: id,
      status: 'completed',
      model: 'image-fast',
      output_url: `https://cdn.example/api/v1/output/${id}/9999999999/sig/0/out-0.png`,
      output_urls: [`https://cdn.example/api/v1/output/${id}/9999999999/sig/0/out-0.png`],
      credits_charged: 4,
      duration_ms: 1000,
      completed_at: new Date().toISOString(),
    });
    const signature = await signWebhook(body, secret);
    const deliver = (url: string) =>
      fetch(`${url}/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-signature': signature,
          'x-service-event': 'generation.completed',
          'x-service-delivery-id': crypto.randomUUID(),
        },
        body,
      });
    const answers = await Promise.all(instances.flatMap((i) => [deliver(i.url), deliver(i.url)]));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(await connection().get(`${prefix}runs:${id}`)).toBe('1');
  });
});

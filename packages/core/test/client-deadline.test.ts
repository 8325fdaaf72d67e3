import { afterAll, describe, expect, it, vi } from 'vitest';
import { MediaGenClient, TimeoutError } from '../src/index';
import { json, startScriptedServer } from './support/scripted-server';

/** Attempts share one timer when they begin together: each must still time out on its own terms. */
const server = await startScriptedServer((req, res) => {
  if (req.path.endsWith('/hang')) return; // never answers
  json(res, 200, { generation_id: 'g', status: 'completed' });
});
afterAll(() => server.close());

describe('timeouts shared by attempts that begin together', () => {
  it('a hanging attempt times out while its group-mates that answered are unaffected, and later calls still work', async () => {
    // A fake clock (real sockets): the three attempts begin at one instant (one group, one
    // timer), and the timeout fires only when the test moves the clock, after the quick ones
    // answered, however slow the machine.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const client = new MediaGenClient({ apiKey: 'svc_live_t', baseUrl: server.url, maxRetries: 0, timeoutMs: 1_500 });
      const hanging = client.generations.get('hang').catch((e: unknown) => e);
      const quick = await Promise.all([client.generations.get('a'), client.generations.get('b')]);
      expect(quick.map((g) => g.status)).toEqual(['completed', 'completed']);
      await vi.advanceTimersByTimeAsync(1_500 + 15);
      const error = await hanging;
      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as Error).message).toMatch(/timed out after 1500 ms/);
      // The group that fired is closed: a new attempt gets a fresh timer, and both kinds work.
      expect((await client.generations.get('c')).status).toBe('completed');
      const again = client.generations.get('hang').catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(1_500 + 15);
      expect(await again).toBeInstanceOf(TimeoutError);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a per-request timeout or a caller signal gets its own timer', async () => {
    const client = new MediaGenClient({ apiKey: 'svc_live_t', baseUrl: server.url, maxRetries: 0, timeoutMs: 60_000 });
    await expect(client.generations.get('hang', { timeoutMs: 100 })).rejects.toBeInstanceOf(TimeoutError);
    const controller = new AbortController();
    const pending = client.generations.get('hang', { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort();
    expect(((await pending) as Error).name).toBe('AbortError');
  });
});

describe('waits longer than a timer can hold', () => {
  it('sleep caps at 2^31-1 ms instead of firing at once (TimeoutOverflowWarning)', async () => {
    const { sleep } = await import('../src/util/sleep');
    let fired = false;
    const controller = new AbortController();
    const slept = sleep(3_000_000_000, controller.signal).then(
      () => (fired = true),
      () => undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(fired).toBe(false);
    controller.abort();
    await slept;
  });
});

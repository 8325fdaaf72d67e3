import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RETRY_AFTER_MAX_MS } from '../src/http/retry-after';
import { backoff } from '../src/http/transport';
import { Gate, MemoryGateStore, RateLimitError, ServerError } from '../src/index';
import { scriptedClients } from './support/scripted-client';
import { errorBody, json } from './support/scripted-server';

const BACKOFF_FLOOR = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000];

afterEach(() => vi.restoreAllMocks());

describe('backoff: the contract floor (1 s, doubling, capped at 30 s) is never shortened', () => {
  it('for every attempt and every draw of the jitter, the wait is at least the floor and at most 30 s', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, draw) => {
        vi.spyOn(Math, 'random').mockReturnValue(draw);
        const floor = BACKOFF_FLOOR[Math.min(attempt, BACKOFF_FLOOR.length) - 1]!;
        const wait = backoff(attempt);
        expect(wait).toBeGreaterThanOrEqual(floor);
        expect(wait).toBeLessThanOrEqual(30_000);
      }),
      { numRuns: 500 },
    );
  });

  it('still spreads clients out below the cap', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    expect(backoff(1)).toBeGreaterThan(1_000);
    expect(backoff(4)).toBeGreaterThan(8_000);
  });
});

describe('a wait asked for past the 10-minute cap', () => {
  const setup = scriptedClients();

  it('is never replaced by a short one: the call fails at once with the wait it was asked for', async () => {
    const { client, server } = await setup((_req, res) => json(res, 429, errorBody('RATE_LIMIT'), { 'retry-after': answer }));
    let answer = '';
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: RETRY_AFTER_MAX_MS / 1000 + 1, max: 10 * 365 * 86_400 }), async (seconds) => {
        answer = String(seconds);
        const before = server.requests.length;
        const error = await client.credits.get().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RateLimitError);
        expect((error as RateLimitError).retryAfterMs).toBe(seconds * 1000);
        expect(server.requests.length - before).toBe(1);
      }),
      { numRuns: 40 },
    );
  });

  it('as an HTTP date an hour ahead, too', async () => {
    const at = new Date(Date.now() + 3_600_000).toUTCString();
    const { client, server } = await setup((_req, res) => json(res, 503, errorBody('INTERNAL_ERROR'), { 'retry-after': at }));
    const error = (await client.credits.get().catch((e: unknown) => e)) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.retryAfterMs).toBeGreaterThan(RETRY_AFTER_MAX_MS);
    expect(server.requests).toHaveLength(1);
  });
});

describe('the gate after a 429 asking for more than the cap', () => {
  const setup = scriptedClients({ maxRetries: 0 });

  it('pauses gated submits for at most the 10 minutes the SDK would wait itself', async () => {
    const pauses: number[] = [];
    const store = new (class extends MemoryGateStore {
      override pause(untilMs: number): void {
        pauses.push(untilMs);
        super.pause(untilMs);
      }
    })();
    const { client } = await setup(
      (req, res) =>
        req.path === '/api/v1/models'
          ? json(res, 200, { tier: 'pro', credits_balance: 1, rate_limit: { per_minute: 240, max_concurrent: 5 }, models: [] })
          : json(res, 429, errorBody('RATE_LIMIT'), { 'retry-after': '3000000' }),
      { gate: new Gate({ store }) },
    );
    const error = await client.generations.create({ model: 'image-fast', prompt: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RATE_LIMIT', retryAfterMs: 3_000_000_000 });
    expect(pauses).toHaveLength(1);
    expect(pauses[0]! - Date.now()).toBeLessThanOrEqual(RETRY_AFTER_MAX_MS);
    expect(pauses[0]! - Date.now()).toBeGreaterThan(RETRY_AFTER_MAX_MS - 60_000);
  });
});

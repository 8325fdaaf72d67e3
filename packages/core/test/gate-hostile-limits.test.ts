import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Gate, isMediaGenError, MediaGenClient, MemoryGateStore } from '../src/index';
import type { RateLimitInfo } from '../src/types';
import { startFakeService } from './support/fake-service';
import { imageFast } from './support/models';

/** What a broken or hostile service may put where the contract says an integer. */
const limitValue = fc.oneof(
  fc.constantFrom('', '5', 'abc', null, 0, -1, Number.NaN, Number.POSITIVE_INFINITY, 0.5),
  fc.integer({ min: -3, max: 3 }),
  fc.double(),
  fc.string({ maxLength: 4 }),
);

describe('the gate under limits a service should never send', () => {
  it('an empty store grants, or names a finite wait, whatever the limits (fast-check)', () => {
    fc.assert(
      fc.property(limitValue, limitValue, (perMinute, maxConcurrent) => {
        const store = new MemoryGateStore({ now: () => 1_000 });
        const grant = store.acquire({ perMinute, maxConcurrent } as never);
        if ('waitMs' in grant) expect(Number.isFinite(grant.waitMs) && grant.waitMs > 0).toBe(true);
      }),
    );
  });

  it('a gated submit ends, answered or a typed error, whatever the models list says the limits are (fast-check)', async () => {
    // Found by the CLI's hostile-service test: per_minute "" made the gate wait NaN ms, forever, in a busy loop.
    await fc.assert(
      fc.asyncProperty(limitValue, limitValue, async (per_minute, max_concurrent) => {
        const service = await startFakeService({
          models: [imageFast],
          rateLimit: { per_minute, max_concurrent } as unknown as RateLimitInfo,
        });
        try {
          const client = new MediaGenClient({
            apiKey: 'svc_live_test',
            baseUrl: service.url,
            maxRetries: 0,
            gate: new Gate({ maxWaitMs: 200 }),
          });
          const outcome = await client.generations.create({ model: 'image-fast', prompt: 'a' }).catch((error: unknown) => error);
          if (isMediaGenError(outcome)) return;
          expect(outcome).toMatchObject({ generation_id: expect.any(String) });
        } finally {
          await service.close();
        }
      }),
      { numRuns: 30 },
    );
  }, 60_000); // 30 real servers and submits; the bound is the test's, not a race
});

import type { Model } from '@mediagen/core';
import { validateParams } from '@mediagen/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emu, emulator } from './helpers.js';

/**
 * "The model list is the source of truth for what a model accepts": every model that takes a
 * seed publishes the range the emulator enforces, and core, validating from that list, agrees.
 */
const KEY = 'svc_live_seed_range';
let emu: Emu;
let seeded: Model[];
beforeAll(async () => {
  emu = await emulator({ timeScale: 0.001, accounts: [{ id: 'acct_seed', tier: 'ultimate', balance: 50_000, keys: [{ key: KEY }] }] });
  const list = await emu.call('GET', '/api/v1/models', { key: KEY });
  seeded = (list.body.models as Model[]).filter((m) => m.params.seed !== undefined);
});
afterAll(() => emu.close());

describe('the seed range is published where it is enforced', () => {
  it('every model that takes a seed lists its min and max', () => {
    expect(seeded.length).toBeGreaterThan(1);
    for (const model of seeded) {
      expect({ slug: model.slug, min: model.params.seed?.min, max: model.params.seed?.max }).toEqual({
        slug: model.slug,
        min: expect.any(Number),
        max: expect.any(Number),
      });
    }
  });

  it('the emulator takes exactly the published range, and core validating from the list agrees', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 1_000 }),
        fc.oneof(fc.integer(), fc.constantFrom(-1, 0, 4_294_967_295, 4_294_967_296), fc.integer({ min: 2 ** 31, max: 2 ** 33 })),
        async (pick, seed) => {
          const model = seeded[pick % seeded.length]!;
          const { min, max } = model.params.seed as { min: number; max: number };
          const body = { ...model.example_request, seed };
          const res = await emu.submit({ ...body, estimate: true }, { key: KEY });
          const inRange = seed >= min && seed <= max;
          expect({ slug: model.slug, seed, status: res.status }).toEqual({ slug: model.slug, seed, status: inRange ? 200 : 422 });
          const coreIssues = validateParams(model, body as never).filter((issue) => issue.field === 'seed');
          expect(coreIssues.length === 0).toBe(inRange);
        },
      ),
      { numRuns: 150 },
    );
  });
});

import type { Model } from '@mediagen/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emu, emulator } from './helpers.js';

/**
 * `example_request` is "a ready request body for the model" (spec: Model). A model whose inputs
 * the API cannot shape answers it `422 MODEL_NOT_API_SUPPORTED`: the list says so
 * (`api_supported: false`, a response field added within v1: Versioning 3 and 5), and every
 * model it does not say so of takes its example as is.
 */
const KEY = 'svc_live_examples';
let emu: Emu;
beforeAll(async () => {
  emu = await emulator({ timeScale: 0.001, accounts: [{ id: 'acct_ex', tier: 'ultimate', balance: 50_000, keys: [{ key: KEY }] }] });
});
afterAll(() => emu.close());

describe('every example request in the list does what the list says', () => {
  it('a quote for each model the list does not mark unusable; MODEL_NOT_API_SUPPORTED exactly for those it does', async () => {
    const models = (await emu.call('GET', '/api/v1/models', { key: KEY })).body.models as Model[];
    const outcomes = [];
    for (const model of models) {
      const res = await emu.submit({ ...model.example_request, estimate: true }, { key: KEY });
      outcomes.push({ slug: model.slug, marked: model.api_supported === false, status: res.status, error: res.body.error });
    }
    expect(outcomes.filter((o) => o.marked).map((o) => o.slug)).toEqual(['lipsync-multi']);
    for (const outcome of outcomes) {
      expect(outcome).toEqual(
        outcome.marked ? { ...outcome, status: 422, error: 'MODEL_NOT_API_SUPPORTED' } : { ...outcome, status: 200, error: undefined },
      );
    }
  });
});

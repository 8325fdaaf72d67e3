import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESPONSE, type Submitted, type WithResponse } from '../src/index';
import { scriptedClients } from './support/scripted-client';
import { generationBody, json } from './support/scripted-server';

const setup = scriptedClients({ maxRetries: 0 });

/** Body fields named like the SDK's response metadata: unknown fields, kept as sent (Versioning 5). */
const colliding = fc.record(
  {
    requestId: fc.jsonValue(),
    rateLimitRemaining: fc.jsonValue(),
    creditsBalance: fc.jsonValue(),
    idempotencyKey: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

const bodies: Record<string, Record<string, unknown>> = {
  '/api/v1/models': { tier: 'pro', credits_balance: 100, rate_limit: { per_minute: 240, max_concurrent: 5 }, models: [] },
  '/api/v1/credits': { balance: 100, tier: 'pro', cycle_resets_at: null, rate_limit: { per_minute: 240, max_concurrent: 5 } },
  '/api/v1/generations/g1': generationBody('completed'),
  '/api/v1/generate': { generation_id: 'g1', status: 'pending', model: 'image-fast', credits_estimate: 4 },
};

describe('response metadata never overwrites a body field', () => {
  it('models.list, credits.get, generations.get and create keep every body field as sent, with or without the headers', async () => {
    let extra: Record<string, unknown> = {};
    let headers: Record<string, string> = {};
    const { client } = await setup((req, res) =>
      json(res, req.path === '/api/v1/generate' ? 202 : 200, { ...bodies[req.path], ...extra, request_id: 'req_body' }, headers),
    );
    const calls = [
      () => client.models.list(),
      () => client.credits.get(),
      () => client.generations.get('g1'),
      () => client.generations.create({ model: 'image-fast', prompt: 'x' }),
    ];
    await fc.assert(
      fc.asyncProperty(colliding, fc.boolean(), fc.integer({ min: 0, max: 3 }), async (fields, withHeaders, call) => {
        extra = JSON.parse(JSON.stringify(fields));
        headers = withHeaders ? { 'x-request-id': 'req_header', 'x-ratelimit-remaining': '7', 'x-credits-balance': '1,234' } : {};
        const result = (await calls[call]!()) as unknown as Record<string, unknown>;
        for (const [key, value] of Object.entries(extra)) expect(result[key]).toEqual(value);
        expect(JSON.parse(JSON.stringify(result))).toMatchObject(extra);
        // The metadata is where no body field can reach it.
        const meta = (result as unknown as WithResponse)[RESPONSE];
        expect(meta.requestId).toBe(withHeaders ? 'req_header' : 'req_body');
        expect([meta.rateLimitRemaining, meta.creditsBalance]).toEqual(withHeaders ? [7, 1234] : [undefined, undefined]);
        if (call === 3) expect((meta as Submitted).idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      }),
      { numRuns: 200 },
    );
  });
});

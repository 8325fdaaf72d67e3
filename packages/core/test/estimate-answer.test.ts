import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { APIError } from '../src/index';
import { scriptedClients } from './support/scripted-client';
import { json } from './support/scripted-server';

const setup = scriptedClients({ maxRetries: 2 });
const params = { model: 'image-fast', prompt: 'a fox' };
const quote = { estimate: true, model: 'image-fast', credits_estimate: 12, pricing_source: 'catalog_default' };

describe('estimate() refuses an answer that is not an estimate', () => {
  it.each([
    ['a 200 with an empty body', 200, ''],
    ['a 204', 204, undefined],
    ['a 200 with an empty object', 200, '{}'],
    ['a 200 with no cost', 200, JSON.stringify({ estimate: true, model: 'image-fast' })],
  ])('%s is INVALID_RESPONSE, not resent', async (_what, status, text) => {
    const { client, server } = await setup((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_e' });
      res.end(text);
    });
    const error = await client.generations.estimate(params).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE', status, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('a 202 carrying a generation_id (a real, maybe billed, generation) is refused and names the generation', async () => {
    const { client } = await setup((_req, res) =>
      json(res, 202, { generation_id: '7b0c6f8e-0000-4000-8000-0000000000aa', status: 'pending', credits_estimate: 12 }),
    );
    const error = (await client.generations.estimate(params).catch((e: unknown) => e)) as APIError;
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE', status: 202 });
    expect(error.message).toContain('7b0c6f8e-0000-4000-8000-0000000000aa');
  });

  it('any body with a generation_id is refused; any object with a numeric cost and none is an estimate', async () => {
    let body: Record<string, unknown> = quote;
    const { client } = await setup((_req, res) => json(res, 200, body));
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.string().filter((k) => !['generation_id', 'credits_estimate', 'request_id', '__proto__'].includes(k)),
          fc.jsonValue(),
        ),
        fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        fc.integer({ min: 0, max: 1_000_000 }),
        async (extra, generationId, cost) => {
          body = { ...extra, credits_estimate: cost, ...(generationId === undefined ? {} : { generation_id: generationId }) };
          const outcome = await client.generations.estimate(params).then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          );
          if (generationId === undefined) expect((outcome as { value: { credits_estimate: number } }).value.credits_estimate).toBe(cost);
          else expect((outcome as { error: APIError }).error.code).toBe('INVALID_RESPONSE');
        },
      ),
      { numRuns: 150 },
    );
  });
});

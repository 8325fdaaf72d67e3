import { startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaGenClient } from '../src/index';
import { createMediaGenHandler } from '../src/server';

/**
 * `input_image` / `input_video` may name a generation of the account instead of a URL, and the
 * service takes any generation of the account: through the app's routes, only one the asking user
 * may read. Here reads are scoped by `authorize` alone (no source); the route conformance suite
 * covers the source-scoped case on every adapter.
 */
const KEY = 'svc_live_input_ownership';
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let client: MediaGenClient;

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    config: { timeScale: 0.001, accounts: [{ id: 'acct_inputs', tier: 'pro', balance: 15_000, keys: [{ key: KEY }] }] },
  });
  client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0 });
});
afterAll(() => emulator?.close());

describe('a submit naming a generation as its input (authorize-scoped reads)', () => {
  it('refuses another user’s generation with the same 422 as an unknown id, and takes the user’s own', async () => {
    const owners = new Map<string, string | undefined>();
    const handler = createMediaGenHandler({
      client,
      identify: (request) => request.headers.get('x-user') ?? undefined,
      authorize: (context, generation) => owners.get(generation.generation_id) === context.owner,
      onSubmitted: (submitted, _params, context) => void owners.set(submitted.generation_id, context.owner),
      onError: () => {},
    });
    const post = async (user: string, path: string, body: unknown) => {
      const res = await handler(
        new Request(`http://app.test${path}`, {
          method: 'POST',
          headers: { 'x-user': user, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    const ada = await post('ada', '/generations', { model: 'image-fast', prompt: 'private' });
    expect(ada.status).toBe(202);
    const adaId = ada.body.generation_id as string;
    expect((await client.generations.wait(adaId)).status).toBe('completed');
    const balance = (await client.credits.get()).balance;

    for (const path of ['/generations', '/estimate']) {
      const theirs = await post('mallory', path, { model: 'image-upscale', input_image: adaId });
      expect({ path, status: theirs.status }).toEqual({ path, status: 422 });
      expect(theirs.body).toMatchObject({ error: 'INVALID_BODY', details: { field: 'input_image' } });
      const unknown = await post('mallory', path, { model: 'image-upscale', input_image: '00000000-0000-4000-8000-000000000000' });
      expect(unknown).toEqual(theirs);
    }
    // The server-action path follows the same rule.
    await expect(handler.actions.submit({ model: 'image-upscale', input_image: adaId }, { owner: 'mallory' })).rejects.toMatchObject({
      status: 422,
      code: 'INVALID_BODY',
    });
    expect((await client.credits.get()).balance).toBe(balance);

    // A URL is the service's to judge, and the owner may use her own generation.
    expect((await post('ada', '/generations', { model: 'image-upscale', input_image: adaId })).status).toBe(202);
  });
});

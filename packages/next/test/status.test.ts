import type { Generation } from '@mediagen/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatusHandler } from '../src';
import { startService } from './support/emulator';

describe('createStatusHandler against a real emulator', () => {
  let service: Awaited<ReturnType<typeof startService>>;
  beforeAll(async () => void (service = await startService()));
  afterAll(() => service?.emulator.close());

  const params = (id: string) => ({ params: Promise.resolve({ id }) });
  const get = (url = 'http://localhost/api/generations/x') => new Request(url);

  it('answers the Generation from the service for the id in the route params, not cached', async () => {
    const read: Generation[] = [];
    const GET = createStatusHandler({ client: service.client, onRead: (g) => void read.push(g) });
    const { generation_id } = await service.client.generations.create({ model: 'image-fast', prompt: 'x' });
    const res = await GET(get(), params(generation_id));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toMatchObject({
      generation_id,
      model: 'image-fast',
      status: expect.stringMatching(/^(pending|processing|completed)$/),
    });
    expect(read.map((g) => g.generation_id)).toEqual([generation_id]);
  });

  it('takes ?id= when the route has no [id] segment', async () => {
    const GET = createStatusHandler({ client: service.client });
    const { generation_id } = await service.client.generations.create({ model: 'image-fast', prompt: 'x' });
    expect((await GET(get(`http://localhost/api/status?id=${generation_id}`))).status).toBe(200);
  });

  it("answers from the app's own record first (what a webhook stored), without asking the service", async () => {
    const stored = { generation_id: 'g-known', status: 'completed', model: 'image-fast' } as Generation;
    const GET = createStatusHandler({ client: service.client, lookup: (id) => (id === 'g-known' ? stored : undefined) });
    expect(await (await GET(get(), params('g-known'))).json()).toEqual(stored);
  });

  it("answers the service's errors as error bodies, and hides models the app does not offer", async () => {
    const GET = createStatusHandler({ client: service.client, allow: ['image-fast'] });
    const missing = await GET(get(), params('00000000-0000-4000-8000-000000000000'));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'NOT_FOUND', message: expect.any(String), next: expect.anything() });
    const { generation_id } = await service.client.generations.create({ model: 'audio-voice', prompt: 'hidden' });
    expect((await GET(get(), params(generation_id))).status).toBe(404);
    expect((await GET(get(), params(''))).status).toBe(404);
    expect((await GET(get(), params('x'.repeat(5000)))).status).toBe(404);
  });
});

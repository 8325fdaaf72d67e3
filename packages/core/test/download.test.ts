import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError, GenerationFailedError, MediaGenClient, parseOutputLink } from '../src/index';
import { startFakeService } from './support/fake-service';
import { imageFast } from './support/models';

type Service = Awaited<ReturnType<typeof startFakeService>>;
let service: Service | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function setup() {
  service = await startFakeService({ models: [imageFast] });
  const c = new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: service.url, maxRetries: 0 });
  const { generation_id } = await c.generations.create({ model: 'image-fast', prompt: 'x' });
  return { c, svc: service, id: generation_id };
}
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const statusReads = (svc: Service, id: string) => svc.count('GET', `/api/v1/generations/${id}`);

describe('generations.download', () => {
  it('by id: reads the status for fresh links, then fetches the output without the API key', async () => {
    const { c, svc, id } = await setup();
    svc.finish(id);
    expect(text(await c.generations.download(id))).toBe(`bytes-of-${id}-0`);
    expect(text(await c.generations.download(id, { index: 1 }))).toBe(`bytes-of-${id}-1`);
    const fetches = svc.seen.filter((s) => s.path.startsWith('/api/v1/output/'));
    expect(fetches).toHaveLength(2);
    expect(fetches.every((s) => s.headers.authorization === undefined)).toBe(true);
  });

  it('with a fresh generation object: no status read', async () => {
    const { c, svc, id } = await setup();
    svc.finish(id);
    const generation = await c.generations.get(id);
    const before = statusReads(svc, id);
    expect(text(await c.generations.download(generation))).toBe(`bytes-of-${id}-0`);
    expect(statusReads(svc, id)).toBe(before);
  });

  it('with an expired or about-to-expire link: polls for a fresh one first', async () => {
    const { c, svc, id } = await setup();
    svc.finish(id);
    svc.state.linkTtlSec = 30; // inside the default 60 s margin
    const generation = await c.generations.get(id);
    expect(parseOutputLink(generation.output_url!).expiresAt.getTime()).toBeGreaterThan(Date.now());
    svc.state.linkTtlSec = 3_600;
    const before = statusReads(svc, id);
    expect(text(await c.generations.download(generation))).toBe(`bytes-of-${id}-0`);
    expect(statusReads(svc, id)).toBe(before + 1);
    // A margin of 0 uses the 30 s link as it is.
    svc.state.linkTtlSec = 30;
    const short = await c.generations.get(id);
    const reads = statusReads(svc, id);
    await c.generations.download(short, { refreshMarginMs: 0 });
    expect(statusReads(svc, id)).toBe(reads);
  });

  it('refreshes once when the service refuses a link that looked valid', async () => {
    const { c, svc, id } = await setup();
    svc.finish(id);
    const generation = await c.generations.get(id);
    svc.state.refuseOutputs = 1;
    expect(text(await c.generations.download(generation))).toBe(`bytes-of-${id}-0`);
    svc.state.refuseOutputs = 5;
    await expect(c.generations.download(generation)).rejects.toMatchObject({ status: 403 });
  });

  it('streams when asked', async () => {
    const { c, svc, id } = await setup();
    svc.finish(id);
    const stream = await c.generations.download(id, { stream: true });
    expect(stream).toBeInstanceOf(ReadableStream);
    expect(await new Response(stream).text()).toBe(`bytes-of-${id}-0`);
  });

  it('explains a generation that is not completed, failed, or lacks the index', async () => {
    const { c, svc, id } = await setup();
    await expect(c.generations.download(id)).rejects.toBeInstanceOf(ConfigurationError);
    svc.finish(id);
    await expect(c.generations.download(id, { index: 5 })).rejects.toBeInstanceOf(ConfigurationError);
    svc.finish(id, 'failed');
    await expect(c.generations.download(id)).rejects.toBeInstanceOf(GenerationFailedError);
  });
});

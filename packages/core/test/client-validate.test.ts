import { afterEach, describe, expect, it } from 'vitest';
import { InvalidRequestError, MediaGenClient, type Model, ParamsValidationError } from '../src/index';
import { startFakeService } from './support/fake-service';
import { imageFast, imagePro } from './support/models';

type Service = Awaited<ReturnType<typeof startFakeService>>;
let service: Service | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

const client = (url: string, extra: Record<string, unknown> = {}) =>
  new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: url, maxRetries: 0, ...extra });

describe('validation before submit', () => {
  it('throws ParamsValidationError with every issue at once, before any submit', async () => {
    service = await startFakeService({ models: [imageFast, imagePro] });
    const c = client(service.url);
    const error = await c.generations
      .create({ model: 'image-pro', prompt: '', quality: 'max', number_results: 9, enhance: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParamsValidationError);
    expect((error as ParamsValidationError).issues.map((i) => i.code).sort()).toEqual(
      ['ENHANCE_NOT_SUPPORTED', 'INVALID_NUMBER_RESULTS', 'INVALID_VALUE', 'MISSING_PROMPT'].sort(),
    );
    expect(service.count('POST', '/api/v1/generate')).toBe(0);
    // estimate validates the same way.
    await expect(c.generations.estimate({ model: 'image-fast', prompt: 'a', size: '1x1' })).rejects.toBeInstanceOf(ParamsValidationError);
    expect(service.count('POST', '/api/v1/generate')).toBe(0);
  });

  it('a malformed entry in the model list (values_by_quality holding a non-array) never throws a TypeError from create', async () => {
    const broken = structuredClone(imagePro);
    (broken.params.size as unknown as Record<string, unknown>).values_by_quality = { standard: 'x', high: null };
    (broken.params.quality as unknown as Record<string, unknown>).values = 'standard';
    service = await startFakeService({ models: [broken] });
    const created = await client(service.url).generations.create({ model: 'image-pro', prompt: 'a', size: '1024x1024' });
    expect(created.generation_id).toBeTruthy();
    expect(service.count('POST', '/api/v1/generate')).toBe(1);
  });

  it('fetches the model list once per client and never shares it between clients', async () => {
    service = await startFakeService({ models: [imageFast] });
    const a = client(service.url);
    const b = client(service.url);
    await Promise.all([1, 2, 3].map(() => a.generations.create({ model: 'image-fast', prompt: 'cat' })));
    await a.generations.create({ model: 'image-fast', prompt: 'dog' });
    expect(service.count('GET', '/api/v1/models')).toBe(1);
    await b.generations.create({ model: 'image-fast', prompt: 'cat' });
    expect(service.count('GET', '/api/v1/models')).toBe(2);
  });

  it('models.find reads one model from the same per-client cache', async () => {
    service = await startFakeService({ models: [imageFast, imagePro] });
    const c = client(service.url);
    expect((await c.models.find('image-pro'))?.slug).toBe('image-pro');
    expect(await c.models.find('no-such-model')).toBeUndefined();
    await c.generations.create({ model: 'image-fast', prompt: 'cat' });
    expect(service.count('GET', '/api/v1/models')).toBe(1);
  });

  it('leaves an unknown slug to the server', async () => {
    service = await startFakeService({ models: [imageFast] });
    service.state.submitOverride = (p) =>
      p.model === 'brand-new' ? [422, { error: 'UNKNOWN_MODEL', message: 'no', next: 'list' }] : undefined;
    const error = await client(service.url)
      .generations.create({ model: 'brand-new', prompt: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(service.count('POST', '/api/v1/generate')).toBe(1);
  });

  it('sends without looking at the list when validate is false', async () => {
    service = await startFakeService({ models: [imageFast] });
    await client(service.url, { validate: false }).generations.create({ model: 'image-fast', prompt: 'x', quality: 'odd' });
    expect(service.count('GET', '/api/v1/models')).toBe(0);
    expect(service.count('POST', '/api/v1/generate')).toBe(1);
  });

  it('submits anyway when the model list cannot be read (the server still validates)', async () => {
    service = await startFakeService({ models: [imageFast] });
    service.state.models = undefined as unknown as Model[];
    const c = client(service.url);
    await expect(c.generations.create({ model: 'image-fast', prompt: 'x' })).resolves.toMatchObject({ status: 'pending' });
  });

  it('refreshes the cached list once when the server refuses what it allowed', async () => {
    service = await startFakeService({ models: [imageFast] });
    const c = client(service.url);
    await c.generations.create({ model: 'image-fast', prompt: 'warm the cache' });
    expect(service.count('GET', '/api/v1/models')).toBe(1);

    // The model's schema changed on the service: 16:9 is gone.
    const changed = { ...imageFast, params: { ...imageFast.params, aspect_ratio: { type: 'enum', values: ['1:1'] } } } as Model;
    service.state.models = [changed];
    service.state.submitOverride = (p) =>
      p.aspect_ratio === '16:9'
        ? [422, { error: 'INVALID_BODY', message: 'ratio', next: 'x', details: { field: 'aspect_ratio' } }]
        : undefined;
    const first = await c.generations.create({ model: 'image-fast', prompt: 'x', aspect_ratio: '16:9' }).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(InvalidRequestError);
    expect(service.count('GET', '/api/v1/models')).toBe(2);
    // The fresh list now catches it client-side, with no request.
    const posts = service.count('POST', '/api/v1/generate');
    await expect(c.generations.create({ model: 'image-fast', prompt: 'x', aspect_ratio: '16:9' })).rejects.toBeInstanceOf(
      ParamsValidationError,
    );
    expect(service.count('POST', '/api/v1/generate')).toBe(posts);
  });

  it('refreshes only once per list, however many 422s follow', async () => {
    service = await startFakeService({ models: [imageFast] });
    service.state.submitOverride = () => [422, { error: 'MODEL_CONTRACT_VIOLATION', message: 'x', next: 'y' }];
    const c = client(service.url);
    for (let i = 0; i < 3; i++) await c.generations.create({ model: 'image-fast', prompt: 'x' }).catch(() => {});
    // One initial fetch, one refresh after the first 422; the refreshed list is not refetched.
    expect(service.count('GET', '/api/v1/models')).toBe(2);
  });

  it('refreshes when the allowlist dropped the model (403 MODEL_NOT_ALLOWED)', async () => {
    service = await startFakeService({ models: [imageFast] });
    service.state.submitOverride = () => [403, { error: 'MODEL_NOT_ALLOWED', message: 'x', next: 'y' }];
    const c = client(service.url);
    await c.generations.create({ model: 'image-fast', prompt: 'x' }).catch(() => {});
    expect(service.count('GET', '/api/v1/models')).toBe(2);
  });

  it('does not refresh on IDEMPOTENCY_KEY_REUSED', async () => {
    service = await startFakeService({ models: [imageFast] });
    service.state.submitOverride = () => [422, { error: 'IDEMPOTENCY_KEY_REUSED', message: 'x', next: 'y' }];
    const c = client(service.url);
    await c.generations.create({ model: 'image-fast', prompt: 'x' }).catch(() => {});
    expect(service.count('GET', '/api/v1/models')).toBe(1);
  });
});

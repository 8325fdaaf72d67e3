import { standardSchemaResolver } from '@hookform/resolvers/standard-schema';
import fc from 'fast-check';
import type { FieldValues, ResolverOptions } from 'react-hook-form';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaGenClient, type Model, validateParams } from '../src/index';
import { paramsSchema } from '../src/standard-schema';
import { startFakeService } from './support/fake-service';
import { imageFast, imagePro } from './support/models';

let service: Awaited<ReturnType<typeof startFakeService>>;
let models: Model[];
beforeAll(async () => {
  service = await startFakeService({ models: [imageFast, imagePro] });
  // The live list, through the client, as an app reads it.
  models = (await new MediaGenClient({ apiKey: 'svc_live_test', baseUrl: service.url, maxRetries: 0 }).models.list()).models;
});
afterAll(() => service.close());

const model = (slug: string) => models.find((m) => m.slug === slug) as Model;
const options = { fields: {}, shouldUseNativeValidation: false } as ResolverOptions<FieldValues>;

describe('paramsSchema(model): a Standard Schema with the rules of validateParams', () => {
  it("react-hook-form's standardSchemaResolver reports each issue under its field", async () => {
    const resolver = standardSchemaResolver(paramsSchema(model('image-pro')));
    const bad = { prompt: '', quality: 'max', number_results: 9, enhance: true };
    const result = await resolver(bad, undefined, options);
    expect(result.values).toEqual({});
    const expected = validateParams(model('image-pro'), bad);
    expect(expected.length).toBeGreaterThan(1);
    for (const issue of expected) {
      expect(result.errors[issue.field]?.message).toBe(expected.find((i) => i.field === issue.field)?.message);
    }
    expect(Object.keys(result.errors).sort()).toEqual([...new Set(expected.map((i) => i.field))].sort());
  });

  it('valid params pass through the resolver unchanged', async () => {
    const resolver = standardSchemaResolver(paramsSchema(model('image-fast')));
    const good = { prompt: 'a lighthouse at dusk' };
    expect(validateParams(model('image-fast'), good)).toEqual([]);
    const result = await resolver(good, undefined, options);
    expect(result.errors).toEqual({});
    expect(result.values).toEqual(good);
  });

  it('agrees with validateParams on any input (fast-check)', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(undefined), fc.array(fc.string(), { maxLength: 3 }));
    const params = fc.record(
      { prompt: value, quality: value, size: value, number_results: value, enhance: value, seed: value, negative_prompt: value },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.constantFrom('image-fast', 'image-pro'), params, (slug, p) => {
        const result = paramsSchema(model(slug))['~standard'].validate(p);
        const issues = validateParams(model(slug), p);
        if (result instanceof Promise) throw new Error('validate is synchronous');
        if (issues.length === 0) expect(result).toEqual({ value: p });
        else expect(result.issues?.map((i) => [i.path?.[0], i.message])).toEqual(issues.map((i) => [i.field, i.message]));
      }),
    );
  });

  it('a non-object value is validated as empty params, never thrown on', () => {
    for (const value of [null, 'x', 3, undefined]) {
      const result = paramsSchema(model('image-pro'))['~standard'].validate(value) as { issues?: unknown[] };
      expect(result.issues?.length ?? 0).toBe(validateParams(model('image-pro'), {}).length);
    }
  });
});

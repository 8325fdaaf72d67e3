import { isMediaGenError, type Model, type ModelList, ParamsValidationError, validateParams } from '@mediagen/core';
import { effectiveLimits, SUBMIT_FIELDS } from '@mediagen/core/wire';
import { catalog } from '@mediagen/emulator';
import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { modelTable } from '../src/model-table';
import { checkParams } from '../src/params/check';
import { parseParamArgs } from '../src/params/parse-params';
import { project } from '../src/types-gen/projection';
import { renderDeclarations } from '../src/types-gen/render';

const model = (slug: string) => catalog.find((m) => m.slug === slug)!;

/** A catalog model whose params (or one of them) are any JSON, or objects that cannot be printed. */
const hostileModel = fc
  .tuple(
    fc.constantFrom(...catalog),
    fc.oneof(
      fc.jsonValue(),
      fc.dictionary(
        fc.constantFrom('size', 'duration', 'quality', 'reference_images'),
        fc.oneof(fc.jsonValue(), fc.constant(JSON.parse('{"values":[{"toString":0}],"min":{"toString":0}}'))),
      ),
    ),
  )
  .map(([model, params]) => ({ ...model, params }) as unknown as Model);

describe('--param parsing', () => {
  it('types values by the schema', () => {
    const video = parseParamArgs(model('video-standard'), ['duration=10', 'audio=no', 'resolution=1080p']);
    expect(video).toEqual({ params: { duration: 10, audio: false, resolution: '1080p' }, issues: [] });
    const pro = parseParamArgs(model('image-pro'), [
      'reference_images=https://a.example/1,2.png',
      'reference_images=["https://b.example/x"]',
    ]);
    expect(pro.params.reference_images).toEqual(['https://a.example/1,2.png', 'https://b.example/x']);
    const bad = parseParamArgs(model('image-pro'), ['number_results=', 'seed=abc', 'novalue', 'constructor=1', '__proto__=1']);
    expect(bad.issues.map((i) => i.code)).toEqual(['INVALID_TYPE', 'INVALID_TYPE', 'INVALID_SYNTAX', 'UNKNOWN_PARAM', 'UNKNOWN_PARAM']);
    expect(Object.getPrototypeOf(bad.params)).toBe(Object.prototype);
  });

  it('any command line gives params and issues, never a throw; checking it throws only ParamsValidationError', () => {
    // The contract's submit fields, and keys that try the parser (prototype names, unknown).
    const keys = fc.constantFrom(...SUBMIT_FIELDS, '__proto__', 'constructor', 'x');
    const pair = fc.oneof(
      fc.tuple(keys, fc.string()).map(([k, v]) => `${k}=${v}`),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...catalog), hostileModel), fc.array(pair, { maxLength: 8 }), (m, pairs) => {
        const { params, issues } = parseParamArgs(m, pairs);
        for (const issue of issues) expect(typeof issue.message).toBe('string');
        for (const value of Object.values(params)) expect(['string', 'number', 'boolean', 'object']).toContain(typeof value);
        try {
          checkParams(m, { model: m.slug, ...params }, issues);
          expect(issues).toHaveLength(0);
        } catch (error) {
          expect(error).toBeInstanceOf(ParamsValidationError);
          expect(isMediaGenError(error)).toBe(true);
          expect((error as ParamsValidationError).issues.length).toBeGreaterThanOrEqual(issues.length);
        }
      }),
      { numRuns: 300 },
    );
  });
});

/** The registry entries a declaration file declares, read back with the TypeScript parser. */
function registryKeys(text: string): string[] | undefined {
  const file = ts.createSourceFile('models.d.ts', text, ts.ScriptTarget.Latest, true);
  if ((file as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics.length > 0) return undefined;
  const augmentation = file.statements.find(ts.isModuleDeclaration);
  const block = augmentation?.body as ts.ModuleBlock | undefined;
  const registry = block?.statements.find(ts.isInterfaceDeclaration);
  return registry?.members.map((m) => (m.name && ts.isStringLiteral(m.name) ? m.name.text : '?'));
}

describe('declarations', () => {
  it('are deterministic: order and key order in the list do not change a byte', () => {
    const list = catalog.map((m) => ({ ...m }));
    const reordered = [...list].reverse().map((m) => Object.fromEntries(Object.entries(m).reverse()) as Model);
    expect(renderDeclarations(project({ models: reordered }))).toBe(renderDeclarations(project({ models: list })));
  });

  it('text from the service (slugs, names, values) can never break out of its string or comment', () => {
    // Any text, and text made of what could end a string, a comment or a line.
    const hostile = fc.constantFrom('*/', '/*', '"', "'", '`', '${', '}', '\\', '\n', '\r', '\u2028', ' ', 'a');
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.array(hostile, { maxLength: 8 }).map((parts) => parts.join('')),
    );
    // Mostly well-typed, sometimes anything at all (JSON from the network).
    const trap = fc.constantFrom(
      ...['{"toString":0}', '{"valueOf":null,"toString":null}', '{"__proto__":{"x":1}}'].map((j) => JSON.parse(j)),
    );
    const any = <T>(arb: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 4, arbitrary: arb }, { weight: 1, arbitrary: fc.jsonValue() }, { weight: 1, arbitrary: trap });
    const spec = fc.record({
      type: any(fc.constantFrom('enum', 'number', 'integer', 'string', 'boolean', 'string[]', 'matrix')),
      required: any(fc.boolean()),
      values: fc.option(any(fc.array(fc.oneof(text, fc.integer(), fc.jsonValue(), trap), { maxLength: 4 })), { nil: undefined }),
      min: fc.option(any(fc.integer({ min: -5, max: 50 })), { nil: undefined }),
      max: fc.option(any(fc.integer({ min: -5, max: 200 })), { nil: undefined }),
      default: fc.option(fc.oneof(text, fc.integer(), fc.boolean(), fc.jsonValue(), trap), { nil: undefined }),
      values_by_quality: fc.option(fc.oneof(fc.jsonValue(), fc.record({ high: fc.array(fc.oneof(text, trap)) })), { nil: undefined }),
      presets_only: fc.option(fc.jsonValue(), { nil: undefined }),
    });
    const entry = fc.record({
      slug: text.filter((s) => s !== ''),
      name: any(text),
      kind: any(text),
      description: any(text),
      modes: any(fc.array(any(text), { maxLength: 3 })),
      params: any(
        fc.dictionary(fc.constantFrom('prompt', 'aspect_ratio', 'size', 'quality', 'resolution', 'duration', 'number_results'), spec),
      ),
      enhance_supported: any(fc.boolean()),
      prompt_max_chars: any(fc.integer()),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 5 }), (models) => {
        const typed = project({ models: models as unknown as Model[] });
        const keys = registryKeys(renderDeclarations(typed));
        expect(keys).toEqual(typed.map((m) => m.slug));
        expect(new Set(keys).size).toBe(new Set(models.map((m) => m.slug)).size);
      }),
      { numRuns: 150 },
    );
  });
});

describe('the models table', () => {
  it('shows any list, however malformed, without throwing', () => {
    const entry = fc.oneof(
      fc.anything(),
      fc.record({
        slug: fc.anything(),
        kind: fc.anything(),
        modes: fc.anything(),
        credits_band: fc.anything(),
        credits_from: fc.anything(),
      }),
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.record({ models: fc.oneof(fc.anything(), fc.array(entry, { maxLength: 5 })), tier: fc.anything() })),
        (list) => {
          const { lines, summary } = modelTable(list as ModelList);
          expect(lines[0]).toMatch(/^SLUG/);
          expect(typeof summary).toBe('string');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('lines the columns up', () => {
    const { lines } = modelTable({ models: catalog, tier: 'pro', credits_balance: 15000 } as unknown as ModelList);
    expect(lines[1]).toMatch(/^image-fast {6}image {2}text-to-image, image-to-image +4$/);
    // The price starts where its header does, however wide the modes column grew.
    expect(lines[1]!.lastIndexOf(' 4') + 1).toBe(lines[0]!.indexOf('CREDITS'));
  });
});

describe('mediagen types and validateParams agree on the effective limits (effectiveLimits in /wire)', () => {
  it('number_results listed without a max types as 1 only, as validateParams allows (it once typed 1 to 4)', () => {
    const base = catalog.find((m) => m.slug === 'image-fast')!;
    const entry = { ...base, params: { ...base.params, number_results: { type: 'number' as const, required: false } } };
    const declarations = renderDeclarations(project({ models: [entry] }));
    expect(declarations).toMatch(/number_results\?: 1;/);
    expect(validateParams(entry, { model: entry.slug, prompt: 'x', number_results: 2 }).map((i) => i.field)).toContain('number_results');
  });
  it('what the CLI says a param accepts (messages, declaration docs) is the effective limit, for any list entry', () => {
    const limit = fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined });
    fc.assert(
      fc.property(fc.constantFrom(...catalog), limit, limit, limit, limit, (base, resultsMin, resultsMax, refsMax, promptMax) => {
        const entry = {
          ...base,
          prompt_max_chars: promptMax === undefined ? base.prompt_max_chars : promptMax * 100,
          params: {
            ...base.params,
            prompt: { type: 'string' as const, required: false },
            number_results: { type: 'integer' as const, required: false, min: resultsMin, max: resultsMax },
            reference_images: { type: 'string[]' as const, required: false, max: refsMax },
          },
        } as Model;
        const limits = effectiveLimits(entry);
        const { issues } = parseParamArgs(entry, ['number_results=lots', 'reference_images=[1]']);
        expect(issues.map((i) => i.message)).toEqual([
          `number_results "lots" is not valid: expected a whole number from ${limits.numberResults.min} to ${limits.numberResults.max}`,
          `reference_images "[1]" is not valid: expected ${limits.referenceImages.min} to ${limits.referenceImages.max} URLs (repeat --param reference_images=URL)`,
        ]);
        const tooLong = 'x'.repeat(limits.promptMax + 1);
        const refused = (() => {
          try {
            checkParams(entry, { model: entry.slug, prompt: tooLong }, []);
          } catch (error) {
            return (error as ParamsValidationError).issues.find((i) => i.field === 'prompt')?.message;
          }
        })();
        expect(refused).toContain(`(allowed: text up to ${limits.promptMax} characters)`);
        const { min, max } = limits.numberResults;
        if (max >= min) expect(renderDeclarations(project({ models: [entry] }))).toContain(`A whole number from ${min} to ${max}.`);
      }),
      { numRuns: 60 },
    );
  });
});

import { validateParams } from '@mediagen/core';
import { PARAM_KEYS, PARAMS_ERROR_CODES, SEED_MAX } from '@mediagen/core/wire';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSupported, type CatalogEntry, entries } from '../src/catalog.js';
import { normalize } from '../src/validate.js';
import { type Emu, emulator } from './helpers.js';

/**
 * Issue 9 §2: core's `validateParams` against the real emulator over HTTP (`estimate: true`, so
 * nothing is billed), random params from each catalog model's own schema plus near misses and
 * junk. The agreement (packages/core/src/params/RULES.md):
 * - the emulator takes it (200): core found no issue (core never refuses what the service takes);
 * - the emulator refuses it as a params error (`PARAMS_ERROR_CODES`): core refuses the same field.
 * Excluded, because the model list cannot tell a client: models the API cannot shape
 * (`MODEL_NOT_API_SUPPORTED`), inputs a model does not take or a generation id's owner (only
 * inputs the catalog entry accepts, as https URLs or junk), mode rules (rule 13, recognised by
 * normalising without the entry's `modeRule`) and fields outside the contract (rule 12).
 */

const RUNS_PER_MODEL = 200;
const models = entries.filter(apiSupported);
const keyOf = (i: number) => `svc_live_differential_${i}`;

let emu: Emu;
beforeAll(async () => {
  // One Ultimate account per model: each stays inside its own quote window (1,200/min).
  emu = await emulator({
    timeScale: 0.001,
    accounts: models.map((_, i) => ({ id: `acct_diff_${i}`, tier: 'ultimate', balance: 50_000, keys: [{ key: keyOf(i) }] })),
  });
});
afterAll(() => emu.close());

const junk = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, '', ' ', 'x', [], {}, ['x'], 2 ** 32, Number.MAX_SAFE_INTEGER),
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -3, max: 20 }),
);

/**
 * Text of UTF-16 units around the surrogate range: pairs (an emoji, one character), halves
 * alone ("\ud800", which JSON can escape but UTF-8 cannot carry) and their neighbours.
 */
const nearSurrogates = fc
  .array(fc.oneof(fc.integer({ min: 0xd7fe, max: 0xe001 }), fc.constant(0x61)), { minLength: 1, maxLength: 6 })
  .map((units) => `a ${String.fromCharCode(...units)}`);

/** Sometimes present: `rarely` keys about one time in eight, the others about half the time. */
const sometimes = (value: fc.Arbitrary<unknown>, rarely = false) =>
  fc.oneof({ weight: rarely ? 7 : 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });

/** Mostly a value the key's spec lists or bounds; else a near miss a user sends (case, ±1, unlisted) or junk. */
function valueFor(entry: CatalogEntry, key: string): fc.Arbitrary<unknown> {
  const spec = entry.model.params[key as keyof CatalogEntry['model']['params']];
  const valid: fc.Arbitrary<unknown>[] = [];
  const near: fc.Arbitrary<unknown>[] = [junk];
  if (spec?.values?.length) {
    const listed = fc.constantFrom(...spec.values);
    valid.push(listed);
    near.push(listed.map((v) => (typeof v === 'string' ? v.toUpperCase() : v)));
    near.push(listed.map((v) => (typeof v === 'string' ? (v.split(/\s/)[0] as string) : v + 1)));
  }
  for (const opt of spec?.options ?? []) near.push(fc.constant(opt.size), fc.constant(opt.tag));
  if (spec?.min !== undefined && spec.max !== undefined) valid.push(fc.integer({ min: spec.min, max: spec.max }));
  if (spec?.min !== undefined) near.push(fc.constantFrom(spec.min, spec.min - 1));
  if (spec?.max !== undefined) near.push(fc.constantFrom(spec.max, spec.max + 1));
  if (key === 'seed') {
    valid.push(fc.integer({ min: 0, max: SEED_MAX }));
    near.push(fc.constantFrom(0, -1, SEED_MAX, SEED_MAX + 1, 1.5));
  }
  if (key === 'reference_images') {
    valid.push(fc.array(fc.constant('https://example.com/r.png'), { maxLength: spec?.max ?? 0 }));
    near.push(fc.array(fc.constantFrom('https://example.com/r.png', 'http://example.com/r.png', 5), { maxLength: 4 }));
  }
  if (key === 'number_results') {
    valid.push(fc.integer({ min: 1, max: spec?.max ?? 1 }));
    near.push(fc.integer({ min: 0, max: 5 }));
  }
  if (key === 'audio') valid.push(fc.boolean());
  if (key === 'size') near.push(fc.constantFrom('1024x1024', '2048x2048', '100x100', '1024*1024'));
  if (key === 'resolution') near.push(fc.constantFrom('1k', '2K', '4k', '720p', '1080P', '2160p'));
  if (key === 'aspect_ratio') near.push(fc.constantFrom('16:9', '21:9', '21:9 1080p', '4:3', '2:1'));
  const miss = fc.oneof(...near);
  return valid.length ? fc.oneof({ weight: 3, arbitrary: fc.oneof(...valid) }, { weight: 1, arbitrary: miss }) : miss;
}

function bodies(entry: CatalogEntry): fc.Arbitrary<Record<string, unknown>> {
  const promptMax = entry.model.prompt_max_chars ?? 2000;
  const fields: Record<string, fc.Arbitrary<unknown>> = {
    prompt: fc.oneof(
      { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).map((s) => `a ${s}`) },
      { weight: 1, arbitrary: fc.constantFrom(undefined, '', '   ', 'x'.repeat(promptMax), 'x'.repeat(promptMax + 1), 7) },
      { weight: 1, arbitrary: nearSurrogates },
    ),
    negative_prompt: sometimes(fc.oneof(fc.constantFrom('blurry', 'n'.repeat(500), 'n'.repeat(501)), junk, nearSurrogates), true),
    enhance: sometimes(fc.oneof(fc.boolean(), junk), true),
  };
  // Every schema key, also those this model does not list (each must then be refused).
  for (const key of PARAM_KEYS) {
    if (key !== 'prompt') fields[key] = sometimes(valueFor(entry, key), entry.model.params[key] === undefined);
  }
  for (const input of entry.accepts) {
    fields[input] = sometimes(fc.oneof(fc.constant('https://example.com/in.png'), fc.constant('http://x/in.png'), junk));
  }
  return fc.record(fields).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as Record<string, unknown>);
}

/** The field a params error names: `details.field`, or the one its code implies. */
const fieldOf = (body: { error: string; details?: { field?: string }; field?: string }): string | undefined =>
  body.details?.field ??
  body.field ??
  (body.error === 'MISSING_PROMPT' ? 'prompt' : body.error === 'ENHANCE_NOT_SUPPORTED' ? 'enhance' : undefined);

/** True when only the entry's mode rule refuses the body: a rule the model list does not publish. */
function modeRuleOnly(entry: CatalogEntry, body: Record<string, unknown>): boolean {
  if (!entry.modeRule) return false;
  try {
    normalize(body, { ...entry, modeRule: undefined }, { ownCompleted: () => false });
    return true;
  } catch {
    return false;
  }
}

/** True when `field` holds an http (not https) link: refused by the service alone (rule 10). */
function plainHttpOnly(body: Record<string, unknown>, field: string | undefined): boolean {
  const value = field === undefined ? undefined : body[field];
  return [value].flat().some((v) => typeof v === 'string' && v.startsWith('http:'));
}

describe('core validateParams vs the emulator, random params on every catalog model', () => {
  it.each(models.map((e, i) => [e.model.slug, e, i] as const))('%s', async (_slug, entry, i) => {
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(bodies(entry), async (params) => {
        const body = { model: entry.model.slug, ...params };
        const issues = validateParams(entry.model, body);
        const res = await emu.call('POST', '/api/v1/generate', { key: keyOf(i), body: { ...body, estimate: true } });
        const seen = issues.map((x) => `${x.field}:${x.code}`);
        if (res.status === 200) {
          accepted++;
          expect(seen, 'core refused what the emulator takes').toEqual([]);
          return;
        }
        const code = res.body?.error as string;
        if (code === 'MODEL_CONTRACT_VIOLATION') {
          // Every params check passed on the emulator; the missing input is not in the list.
          expect(seen).toEqual([]);
          return;
        }
        expect(PARAMS_ERROR_CODES as readonly string[], `unexpected ${res.status} ${code}`).toContain(code);
        if (code === 'OPTION_NOT_AVAILABLE' && modeRuleOnly(entry, body)) return;
        // Rule 10: whether a link is public https is the service's to judge (core checks it is a URL).
        if (code === 'INVALID_BODY' && plainHttpOnly(body, fieldOf(res.body))) return;
        refused++;
        expect(
          issues.map((x) => x.field),
          `emulator: ${res.status} ${code} ${JSON.stringify(res.body)}`,
        ).toContain(fieldOf(res.body));
      }),
      { numRuns: RUNS_PER_MODEL },
    );
    // The generator reaches both sides of the line on every model.
    expect(accepted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});

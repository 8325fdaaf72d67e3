/**
 * Owners a database cannot keep as written: NUL (PostgreSQL refuses it: a raw driver error) and
 * unpaired surrogates (stored as UTF-8, each becomes U+FFFD, so `x\ud800` and `x\ufffd` would be
 * one owner reading the other's generations, while the first could not read its own). The
 * ledger refuses them before any store or the service is asked; every other owner round-trips.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../src/index';
import { createGenerationLedger, MemoryGenerationStore } from '../src/ledger';
import { ledgerEmulator } from './support/ledger-emulator';

type Emu = Awaited<ReturnType<typeof ledgerEmulator>>;

/** A string with one unstorable code unit put somewhere in it. */
const unstorable = fc
  .tuple(fc.string(), fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff'), fc.string())
  .map(([before, bad, after]) => before + bad + after)
  // `\ud800` + `\udc00` from the two halves would be a valid pair again.
  .filter((owner) => /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(owner));

/** Any non-empty string of whole Unicode characters without NUL. */
const storable = fc.string({ unit: 'binary', minLength: 1 }).filter((owner) => !owner.includes('\u0000'));

describe('the ledger: owners it cannot store as written are refused, before anything is billed', () => {
  let emu: Emu;
  beforeAll(async () => {
    emu = await ledgerEmulator();
  });
  afterAll(() => emu.close());

  it('NUL and unpaired surrogates: submit, get, list and adopt throw ConfigurationError without echoing the owner', async () => {
    const ledger = createGenerationLedger({ client: emu.client(), store: new MemoryGenerationStore() });
    const before = await emu.reserves();
    await fc.assert(
      fc.asyncProperty(unstorable, async (owner) => {
        const calls = [
          () => ledger.submit(owner, { model: 'image-fast', prompt: 'x' }),
          () => ledger.get(owner, 'anything'),
          () => ledger.list(owner),
          () =>
            ledger.adopt(
              owner,
              {
                generation_id: '00000000-0000-4000-8000-000000000000',
                status: 'pending',
                model: 'image-fast',
                credits_estimate: 4,
                created_at: new Date(0).toISOString(),
              } as never,
              { model: 'image-fast', prompt: 'x' },
            ),
        ];
        for (const call of calls) {
          const error = await call().then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(ConfigurationError);
          expect((error as Error).message).not.toContain(owner);
        }
      }),
      { numRuns: 60 },
    );
    expect(await emu.reserves()).toEqual(before);
  });

  it('the pair of a lone surrogate and U+FFFD: only the well-formed one is an owner, and it reads only its own', async () => {
    const ledger = createGenerationLedger({ client: emu.client(), store: new MemoryGenerationStore() });
    await expect(ledger.submit('x\ud800', { model: 'image-fast', prompt: 'x' })).rejects.toBeInstanceOf(ConfigurationError);
    const mine = await ledger.submit('x\ufffd', { model: 'image-fast', prompt: 'x' });
    expect((await ledger.list('x\ufffd')).generations.map((g) => g.generation_id)).toEqual([mine.generation_id]);
  });

  it('every other non-empty owner is accepted as it is', async () => {
    const ledger = createGenerationLedger({ client: emu.client(), store: new MemoryGenerationStore() });
    await fc.assert(
      fc.asyncProperty(storable, async (owner) => {
        expect((await ledger.list(owner)).generations).toEqual([]);
        expect(await ledger.get(owner, 'nothing')).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });
});

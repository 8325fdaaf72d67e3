import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createGenerationLedger, type LedgerStatus, MemoryGenerationStore } from '../src/ledger';
import { precedence } from '../src/ledger/precedence';
import type { Generation, GenerationStatus } from '../src/types';
import { ledgerEmulator, manualClock } from './support/ledger-emulator';

const emu = await ledgerEmulator();
afterAll(() => emu.close());

const RANK: Record<LedgerStatus, number> = { submitting: 0, pending: 1, processing: 2, completed: 3, failed: 3 };

/** A generation's real path: pending, processing, then one terminal state. */
const trajectory = fc
  .constantFrom<GenerationStatus>('completed', 'failed')
  .map((end): GenerationStatus[] => ['pending', 'processing', end]);

/** What sources report: states from the path, each any number of times, in any order. */
const observations = trajectory.chain((path) =>
  fc.record({ path: fc.constant(path), seen: fc.array(fc.constantFrom(...path), { minLength: 1, maxLength: 30 }) }),
);

describe('precedence: the one rule', () => {
  it('is a total order on ranks: equal states are the same, terminal is never replaced', () => {
    const all: LedgerStatus[] = ['submitting', 'pending', 'processing', 'completed', 'failed'];
    for (const a of all) {
      for (const b of all) {
        const verdict = precedence(a, b);
        if (a === b) expect(verdict).toBe('same');
        else if (RANK[a] === 3) expect(verdict).toBe('stale');
        else expect(verdict).toBe(RANK[b] > RANK[a] ? 'advance' : 'stale');
      }
    }
  });

  it('folding any interleaving ends at the furthest state seen, entering the terminal state at most once', () => {
    fc.assert(
      fc.property(observations, ({ path, seen }) => {
        let state: LedgerStatus = 'submitting';
        let terminalEntries = 0;
        for (const next of seen) {
          if (precedence(state, next) === 'advance') {
            state = next;
            if (RANK[next] === 3) terminalEntries++;
          }
        }
        const furthest = seen.reduce((a, b) => (RANK[b] > RANK[a] ? b : a), 'submitting' as LedgerStatus);
        expect(state).toBe(furthest);
        expect(terminalEntries).toBe(seen.includes(path[2] as GenerationStatus) ? 1 : 0);
      }),
    );
  });
});

describe('the ledger applies every source through it', () => {
  it('concurrent webhook, poll and wait observations in any order: the furthest state, handed over once', async () => {
    const client = emu.client();
    await fc.assert(
      fc.asyncProperty(observations, fc.array(fc.nat(3), { minLength: 30, maxLength: 30 }), async ({ path, seen }, delays) => {
        const store = new MemoryGenerationStore();
        const handed: string[] = [];
        const clock = manualClock();
        const ledger = createGenerationLedger({ client, store, now: clock.now, onTerminal: (g) => void handed.push(g.status) });
        const id = crypto.randomUUID();
        await store.insert({
          key: `k-${id}`,
          owner: 'alice',
          params: { model: 'image-fast', prompt: 'p' },
          status: 'pending',
          generation_id: id,
          generation: null,
          error: null,
          unavailable: false,
          abandoned: false,
          notified: false,
          outputs: null,
          created_at: 1,
          updated_at: 1,
          next_check_at: Number.MAX_SAFE_INTEGER,
          version: 0,
          lease_holder: null,
          lease_until: 0,
        });
        const as = (status: GenerationStatus): Generation => ({
          generation_id: id,
          status,
          model: 'image-fast',
          output_url: null,
          output_urls: null,
          credits_used: 4,
          duration_ms: null,
          created_at: '',
          completed_at: null,
          request_id: '',
        });
        // Each observation arrives after a random number of turns: sources race one another.
        await Promise.all(
          seen.map(async (status, i) => {
            for (let t = 0; t < (delays[i] ?? 0); t++) await Promise.resolve();
            await ledger.apply(as(status));
          }),
        );
        const end = path[2] as GenerationStatus;
        const furthest = seen.reduce((a, b) => (RANK[b] > RANK[a] ? b : a), 'pending' as LedgerStatus);
        expect((await store.get(`k-${id}`))?.status).toBe(furthest);
        expect(handed).toEqual(seen.includes(end) ? [end] : []);
      }),
      { numRuns: 60 },
    );
  });
});

import { type GenerationLedger, ledgerSource, SHARED_OWNER } from '@mediagen/core/ledger';
import type { GenerationSource } from '@mediagen/nestjs';

/**
 * The checker's `linkMarginMs`: every link counts as near expiry, so its reads always ask the
 * service. The checker is a second ledger on the same store, never started (no reconciler).
 */
export const CHECK_EVERY_LINK_MS = 100 * 365 * 24 * 3600_000;

/**
 * `ledgerSource(ledger)` (record, get, list, and `submit` when the handler uses it), plus one
 * check per generation per process. The ledger re-signs a link by itself only near its expiry;
 * a service that lost its records meanwhile (the emulator restarted with `pnpm demo`) would have
 * its dead links served until then. So the first list of a completed generation this process did
 * not record asks the service once (`checker`): fresh links, or `available: false` when it is
 * gone. Links the ledger got in this process need no check.
 */
export function checkedSource(ledger: GenerationLedger, checker: GenerationLedger): GenerationSource {
  const source = ledgerSource(ledger);
  const checked = new Set<string>();
  return {
    ...source,
    async record(entry) {
      checked.add(entry.submitted.generation_id);
      return source.record(entry);
    },
    async list(owner, page) {
      const result = await source.list(owner, page);
      const generations = await Promise.all(
        result.generations.map(async (g) => {
          if (checked.has(g.generation_id) || g.status !== 'completed' || !g.available) return g;
          const read = await checker.get(owner ?? SHARED_OWNER, g.generation_id);
          checked.add(g.generation_id);
          return read?.generation_id ? { ...read, generation_id: read.generation_id } : g;
        }),
      );
      return { ...result, generations };
    },
  };
}

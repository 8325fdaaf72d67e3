import type { GenerationSource } from '@mediagen/core/server';
import type { GenerationStore } from './store';

/**
 * The handler's `GenerationSource` over the sample's SQLite store: what it records per user and
 * how it scopes reads. (The generation ledger replaces this; the store is asked for per call, so
 * building the handler opens no database.)
 */
export function storeSource(store: () => GenerationStore): GenerationSource {
  return {
    record: ({ owner, submitted, params }) => store().addSubmitted(submitted, params, owner),
    get: (id, owner) => owner !== undefined && store().ownerOf(id) === owner,
    list: (owner, { limit }) => ({
      generations:
        owner === undefined
          ? []
          : store()
              .list(owner, limit)
              .map((g) => ({ ...g })),
    }),
  };
}

import type { GenerationSource } from '@mediagen/nestjs';
import type { GenerationStore } from './store.js';

/**
 * The sample's SQLite store as what `MediaGenModule`'s routes record submits in and scope reads
 * by: each generation belongs to the user who submitted it (see `user.ts`).
 */
export function storeSource(store: GenerationStore): GenerationSource {
  return {
    record: ({ owner, submitted, params }) => store.addSubmitted(submitted, params, owner),
    get: (id, owner) => store.owns(id, owner),
    list: (owner, { limit }) => ({ generations: store.list(owner, limit) }),
  };
}

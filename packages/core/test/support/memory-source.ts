import type { GenerationSource, SubmittedGeneration } from '../../src/server';

/** The smallest `GenerationSource`: submits kept in memory per owner, newest first. */
export function memorySource() {
  const entries: SubmittedGeneration[] = [];
  const source: GenerationSource = {
    record: (entry) => void entries.unshift(entry),
    get: (id, owner) => entries.find((e) => e.submitted.generation_id === id && e.owner === owner),
    list: (owner, { limit }) => ({
      generations: entries
        .filter((e) => e.owner === owner)
        .slice(0, limit)
        .map((e) => e.submitted),
    }),
  };
  return { source, entries };
}

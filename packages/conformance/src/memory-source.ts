import type { GenerationSource, SubmittedGeneration } from '@mediagen/core/server';

/** The smallest `GenerationSource`, for the suite: submits kept in memory per owner, newest first. */
export function memorySource(): GenerationSource & { entries: SubmittedGeneration[] } {
  const entries: SubmittedGeneration[] = [];
  return {
    entries,
    record: (entry) => void entries.unshift(entry),
    get: (id, owner) => entries.find((e) => e.submitted.generation_id === id && e.owner === owner),
    list: (owner, { limit }) => ({
      generations: entries
        .filter((e) => e.owner === owner)
        .slice(0, limit)
        .map((e) => e.submitted),
    }),
  };
}

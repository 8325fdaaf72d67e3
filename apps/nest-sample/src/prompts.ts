import type { GenerationStore } from '@mediagen/core/ledger';
import type { GenerationSource } from '@mediagen/nestjs';

type ListPage = Awaited<ReturnType<GenerationSource['list']>>;

/**
 * Adds each generation's prompt to the list the page shows. The ledger keeps the submit's params
 * with each record, but its view is the service's Generation resource, which has no prompt.
 */
export function withPrompts(source: GenerationSource, store: GenerationStore): GenerationSource {
  return {
    ...source,
    async list(owner, page): Promise<ListPage> {
      const result = await source.list(owner, page);
      const generations = await Promise.all(
        result.generations.map(async (g) => {
          const prompt = (await store.getByGenerationId(g.generation_id))?.params.prompt;
          return typeof prompt === 'string' ? { ...g, prompt } : g;
        }),
      );
      return { ...result, generations };
    },
  };
}

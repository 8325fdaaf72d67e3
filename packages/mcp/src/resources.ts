import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SessionContext } from './context';
import { notFound } from './errors';
import { summary } from './results';

const TEMPLATE = 'mediagen://generations/{id}';

/**
 * `mediagen://generations/{id}`: the owner's generations, read from the ledger (so from its
 * store: on SQLite they outlive the server process), links signed afresh on each read.
 */
export function registerGenerationResources(ctx: SessionContext): void {
  ctx.server.registerResource(
    'generation',
    new ResourceTemplate(TEMPLATE, {
      list: async () => {
        const page = await ctx.ledger.list(ctx.owner, { limit: 100 });
        return {
          resources: page.generations
            .filter((g) => g.generation_id !== null)
            .map((g) => ({
              uri: `mediagen://generations/${g.generation_id}`,
              name: `${g.model} ${g.generation_id}`,
              description: `${g.status}, ${g.credits_used} credits`,
              mimeType: 'application/json',
            })),
        };
      },
    }),
    { title: 'Generation', description: 'One of your generations: state, cost and fresh output links.', mimeType: 'application/json' },
    async (uri, variables) => {
      const id = decodeURIComponent(String(variables.id ?? ''));
      const g = await ctx.ledger.get(ctx.owner, id);
      if (!g) throw notFound(id);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(summary(g)) }] };
    },
  );
}

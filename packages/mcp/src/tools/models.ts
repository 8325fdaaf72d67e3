import { z } from 'zod';
import type { SessionContext } from '../context';
import { toolError } from '../errors';
import { describeModel, modelLine, priceOf } from '../model-schema';

const READ_ONLY = { readOnlyHint: true, openWorldHint: true } as const;

/** `list_models` and `describe_model`, read from the account's live list on each call. */
export function registerModelTools(ctx: SessionContext): void {
  const lines = ctx.models?.map(modelLine).join('\n') ?? '';
  ctx.server.registerTool(
    'list_models',
    {
      title: 'List models',
      description: `The models this account may use, with kind and starting price in credits.${lines ? `\n${lines}` : ''}`,
      annotations: READ_ONLY,
    },
    async () => {
      try {
        const list = await ctx.client.models.list();
        const models = list.models.map((m) => ({
          slug: m.slug,
          name: m.name,
          kind: m.kind,
          category: m.category,
          modes: m.modes,
          price: priceOf(m),
        }));
        const data = { models, tier: list.tier, credits_balance: list.credits_balance };
        return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
      } catch (error) {
        return toolError(error);
      }
    },
  );

  ctx.server.registerTool(
    'describe_model',
    {
      title: 'Describe a model',
      description: "One model's params (JSON Schema with its own values, ranges and defaults), limits, price and typical render time.",
      inputSchema: { model: z.string().min(1).describe('Model slug (list_models).') },
      annotations: READ_ONLY,
    },
    async ({ model }) => {
      try {
        const found = (await ctx.client.models.list()).models.find((m) => m.slug === model);
        if (!found) {
          const data = { error: 'UNKNOWN_MODEL', message: `No model ${model.slice(0, 80)} on this account; list_models names them.` };
          return { isError: true, content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
        }
        const data = describeModel(found);
        return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
      } catch (error) {
        return toolError(error);
      }
    },
  );
}

import { ENHANCE_CREDITS } from '@mediagen/core/wire';
import { paramsFrom, paramsShape } from '../args-shape';
import type { SessionContext } from '../context';
import { toolError } from '../errors';

/** `estimate` (exact, charges nothing) and `credits` (the wallet and this session's cap). */
export function registerAccountTools(ctx: SessionContext): void {
  const shape = paramsShape(ctx.models, ctx.options.inputs !== undefined);
  ctx.server.registerTool(
    'estimate',
    {
      title: 'Estimate a generation',
      description:
        'The exact cost in credits of a generate with these params, and whether the balance and the session cap cover it. Charges nothing.',
      inputSchema: shape,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args) => {
      try {
        const params = paramsFrom(args, shape);
        // A file is stored to be priced (its kind picks the mode): the same object a generate then links.
        const quote = await ctx.client.generations.estimate(((await ctx.options.inputs?.(params)) ?? params) as never);
        const total = quote.credits_estimate + (params.enhance === true ? ENHANCE_CREDITS : 0);
        const spend = ctx.spend.report();
        const data = {
          model: params.model,
          credits_estimate: quote.credits_estimate,
          total_credits: total,
          pricing_source: quote.pricing_source ?? null,
          balance: typeof quote.balance === 'number' ? quote.balance : null,
          sufficient: typeof quote.sufficient === 'boolean' ? quote.sufficient : null,
          within_spend_cap: spend.remaining === null || total <= spend.remaining,
          spend,
        };
        return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
      } catch (error) {
        return toolError(error);
      }
    },
  );

  ctx.server.registerTool(
    'credits',
    {
      title: 'Credits',
      description: "The account's balance and cycle, and this session's spend cap: committed and remaining credits.",
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async () => {
      try {
        const c = await ctx.client.credits.get();
        const data = {
          balance: c.balance,
          tier: c.tier,
          spent_this_cycle: c.spent_this_cycle,
          cycle_resets_at: c.cycle_resets_at,
          session_spend: ctx.spend.report(),
        };
        return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
      } catch (error) {
        return toolError(error);
      }
    },
  );
}

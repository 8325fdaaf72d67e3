import type { LedgerGeneration } from '@mediagen/core/ledger';
import { ENHANCE_CREDITS, IDEMPOTENCY_KEY_MAX } from '@mediagen/core/wire';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { paramsFrom, paramsShape } from '../args-shape';
import { DEFAULTS, type SessionContext } from '../context';
import { toolError } from '../errors';
import { generateKey } from '../keys';
import { generationResult } from '../results';

/**
 * `generate`: every call goes through the ledger, under an idempotency key derived from this
 * session and the canonical arguments (or from `request_key`, scoped to the owner), so a call
 * repeated after a timeout or a dropped connection returns the same generation, billed once.
 * Before a new submit: the exact estimate, the session cap (held atomically), and, above the
 * confirmation threshold, the person's yes when the client can ask them.
 */
export function registerGenerateTool(ctx: SessionContext): void {
  const shape = paramsShape(ctx.models, ctx.options.inputs !== undefined);
  const cap = ctx.spend.report().cap;
  ctx.server.registerTool(
    'generate',
    {
      title: 'Generate',
      description: [
        'Starts one billed generation and answers at once with its id (then call wait, or read the resource).',
        'Calling again with the same arguments in this session, or with the same request_key, returns the same generation and bills nothing more.',
        `Costs its exact estimate (see estimate).${cap !== null ? ` This session may commit at most ${cap} credits.` : ''}`,
      ].join(' '),
      inputSchema: {
        ...shape,
        request_key: z
          .string()
          .min(1)
          .max(IDEMPOTENCY_KEY_MAX)
          .optional()
          .describe('Your own name for this request: the same key returns the same generation, in any session, after a restart too.'),
      },
      annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    async (args) => {
      try {
        return await generate(ctx, paramsFrom(args, shape), args.request_key);
      } catch (error) {
        return toolError(error);
      }
    },
  );
}

async function generate(
  ctx: SessionContext,
  params: Record<string, unknown> & { model: string },
  requestKey: string | undefined,
): Promise<CallToolResult> {
  const key = await generateKey({ owner: ctx.owner, sessionId: ctx.sessionId, params, requestKey });
  // Known already (a repeat, a retry after a drop or a restart): the same generation, no new estimate, no cap charge.
  const known = await ctx.ledger.get(ctx.owner, key);
  if (known && !known.submitting) return answer(ctx, known, true);

  // Files as links, once (keyed above by the paths as given): the ledger records and resends these links.
  const sent = ((await ctx.options.inputs?.(params)) ?? params) as typeof params;
  // The exact price the submit will reserve, from the same validation and pricing (charges nothing).
  const quote = await ctx.client.generations.estimate(sent as never);
  const credits = quote.credits_estimate + (params.enhance === true ? ENHANCE_CREDITS : 0);

  if (!known && !(await confirmed(ctx, params.model, credits))) {
    const data = { status: 'not_submitted', reason: 'declined', credits_estimate: credits, spend: ctx.spend.report() };
    return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
  }

  ctx.spend.hold(key, credits);
  let generation: LedgerGeneration;
  try {
    generation = await ctx.ledger.submit(ctx.owner, sent as never, { idempotencyKey: key });
  } catch (error) {
    // Refused for good (nothing billed): the credits go back to the cap. A retryable failure
    // keeps them held: the ledger resends the intent with its key and it may be billed.
    const recorded = await ctx.ledger.get(ctx.owner, key).catch(() => undefined);
    if (!recorded || (recorded.status === 'failed' && recorded.generation_id === null)) ctx.spend.release(key);
    throw error;
  }
  if (generation.generation_id === null && generation.status === 'failed') ctx.spend.release(key);
  return answer(ctx, generation, false);
}

function answer(ctx: SessionContext, g: LedgerGeneration, replayed: boolean): Promise<CallToolResult> {
  return generationResult(ctx, g, { replayed, spend: ctx.spend.report() });
}

/** Asks the person before an expensive call, where the client can ask (elicitation); else proceeds. */
async function confirmed(ctx: SessionContext, model: string, credits: number): Promise<boolean> {
  const threshold = ctx.options.confirmAboveCredits ?? DEFAULTS.confirmAboveCredits;
  if (credits <= threshold || !ctx.server.server.getClientCapabilities()?.elicitation) return true;
  const spend = ctx.spend.report();
  const answer = await ctx.server.server.elicitInput({
    message: `Generate with ${model} for ${credits} credits?${spend.remaining !== null ? ` (${spend.remaining} left under this session's cap)` : ''}`,
    requestedSchema: {
      type: 'object',
      properties: { confirm: { type: 'boolean', title: `Spend ${credits} credits`, default: false } },
      required: ['confirm'],
    },
  });
  return answer.action === 'accept' && answer.content?.confirm === true;
}

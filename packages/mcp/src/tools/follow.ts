import { TimeoutError } from '@mediagen/core';
import type { LedgerGeneration } from '@mediagen/core/ledger';
import { TYPICAL_RENDER_SECONDS } from '@mediagen/core/wire';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DEFAULTS, type SessionContext } from '../context';
import { notFound, toolError } from '../errors';
import { generationResult } from '../results';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const ID = z.string().min(1).max(256).describe('generation_id (or the idempotency key) from generate.');

/** `get` (one read, links fresh) and `wait` (to a terminal state, with progress notifications). */
export function registerFollowTools(ctx: SessionContext): void {
  ctx.server.registerTool(
    'get',
    {
      title: 'Get a generation',
      description: 'The generation now: status, cost, fresh output links, and the output itself when small (image, text).',
      inputSchema: { id: ID },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ id }) => {
      try {
        const g = await ctx.ledger.get(ctx.owner, id);
        if (!g) throw notFound(id);
        return await generationResult(ctx, g);
      } catch (error) {
        return toolError(error);
      }
    },
  );

  const maxWait = ctx.options.maxWaitSeconds ?? DEFAULTS.maxWaitSeconds;
  ctx.server.registerTool(
    'wait',
    {
      title: 'Wait for a generation',
      description: `Waits until the generation is completed or failed (at most timeout_seconds, default and max ${maxWait}), sending progress notifications; then answers as get does. Not finished by then: answers its current state, call wait again. Image renders typically take 5-15 s, video 30-180 s.`,
      inputSchema: { id: ID, timeout_seconds: z.number().positive().max(maxWait).optional() },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ id, timeout_seconds }, extra) => {
      try {
        return await wait(ctx, id, (timeout_seconds ?? maxWait) * 1000, extra);
      } catch (error) {
        return toolError(error);
      }
    },
  );
}

async function wait(ctx: SessionContext, id: string, timeoutMs: number, extra: Extra) {
  const start = await ctx.ledger.get(ctx.owner, id);
  if (!start) throw notFound(id);
  if (start.status === 'completed' || start.status === 'failed' || !start.generation_id) return generationResult(ctx, start);
  const progress = progressReporter(ctx, start, extra);
  await progress(start.status);
  let timedOut = false;
  try {
    const done = await ctx.client.generations.wait(start.generation_id, {
      timeoutMs,
      signal: extra.signal,
      // Each status seen is recorded (the ledger's precedence keeps the newest) and reported.
      onUpdate: (g) => {
        void ctx.ledger.apply(g).catch(() => {});
        void progress(g.status);
      },
    });
    await ctx.ledger.apply(done);
  } catch (error) {
    if (!(error instanceof TimeoutError)) throw error;
    timedOut = true;
  }
  const now = (await ctx.ledger.get(ctx.owner, id)) ?? start;
  return generationResult(ctx, now, timedOut ? { note: 'Not finished yet: call wait again.' } : {});
}

/**
 * Progress notifications for one wait, when the client asked (a progressToken): the seconds so
 * far (always increasing, as the spec requires), with the contract's typical render time for the
 * model's kind as `total` while the wait is within it.
 */
function progressReporter(ctx: SessionContext, g: LedgerGeneration, extra: Extra) {
  const token = extra._meta?.progressToken;
  const kind = ctx.models?.find((m) => m.slug === g.model)?.kind;
  const typical = kind ? TYPICAL_RENDER_SECONDS[kind] : undefined;
  const began = Date.now();
  let last = -1;
  return async (status: string) => {
    if (token === undefined) return;
    const elapsed = Math.max(last + 0.001, (Date.now() - began) / 1000);
    last = elapsed;
    const within = typical && elapsed < typical[1];
    const message = `${status}, ${Math.round(elapsed)} s${typical ? `; ${kind} renders typically take ${typical[0]}-${typical[1]} s` : ''}`;
    await extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: elapsed, ...(within ? { total: typical[1] } : {}), message },
      })
      .catch(() => {});
  };
}

import { isMediaGenError } from '@mediagen/core';
import type { LedgerGeneration } from '@mediagen/core/ledger';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { imageType, readBounded, toBase64 } from './bounded-read';
import { DEFAULTS, type SessionContext } from './context';

type Content = CallToolResult['content'][number];

/**
 * What an agent and a person read about a generation: its state, cost and output links (signed
 * afresh by the ledger's read when near expiry), and never its params' secrets (there are none:
 * the API key is not in a generation).
 */
export function summary(g: LedgerGeneration, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    generation_id: g.generation_id,
    status: g.submitting ? 'submitting' : g.status,
    model: g.model,
    credits_used: g.credits_used,
    ...(typeof g.credits_estimate === 'number' ? { credits_estimate: g.credits_estimate } : {}),
    output_url: g.output_url,
    output_urls: g.output_urls,
    created_at: g.created_at,
    completed_at: g.completed_at,
    ...(g.error ? { error: g.error } : {}),
    ...(g.generation_id ? { resource: `mediagen://generations/${g.generation_id}` } : {}),
    ...extra,
  };
}

/**
 * A generation as a tool result: the summary as JSON text (and structured), plus the output
 * itself when it is small: an image as image content, a text output as text. Bounded by
 * `maxImageBytes` / `maxTextBytes`; a larger or unreadable output is left to its link.
 */
export async function generationResult(
  ctx: SessionContext,
  g: LedgerGeneration,
  extra: Record<string, unknown> = {},
): Promise<CallToolResult> {
  const data = summary(g, extra);
  const content: Content[] = [{ type: 'text', text: JSON.stringify(data) }];
  if (g.status === 'completed' && g.output_url) content.push(...(await inlineOutput(ctx, g)));
  return { content, structuredContent: data };
}

async function inlineOutput(ctx: SessionContext, g: LedgerGeneration): Promise<Content[]> {
  const kind = ctx.models?.find((m) => m.slug === g.model)?.kind;
  if (kind !== 'image' && kind !== 'text') return [];
  const max =
    kind === 'image' ? (ctx.options.maxImageBytes ?? DEFAULTS.maxImageBytes) : (ctx.options.maxTextBytes ?? DEFAULTS.maxTextBytes);
  try {
    // The ledger's generation (fresh links) as the target: download reads it again only if a link is near expiry.
    const stream = await ctx.client.generations.download(g as never, { stream: true });
    const bytes = await readBounded(stream, max);
    if (!bytes) return [{ type: 'text', text: `The output is over ${max} bytes: fetch it from output_url.` }];
    if (kind === 'text') return [{ type: 'text', text: new TextDecoder().decode(bytes) }];
    const mimeType = imageType(bytes);
    return mimeType ? [{ type: 'image', data: toBase64(bytes), mimeType }] : [];
  } catch (error) {
    // The links still stand; the inline copy is a convenience. The code only: a message could hold a link.
    return [
      { type: 'text', text: `The output could not be read inline (${isMediaGenError(error) ? error.code : 'error'}); use output_url.` },
    ];
  }
}

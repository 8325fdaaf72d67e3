import { isMediaGenError, MediaGenError, NotFoundError } from '@mediagen/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A generate refused because it would take the session past its spend cap: nothing was sent, nothing billed. */
export class SpendCapExceededError extends MediaGenError {
  override name = 'SpendCapExceededError';
  /** Credits the refused call would have cost (its exact estimate). */
  readonly needed: number;
  /** Credits the session may still commit. */
  readonly remaining: number;
  constructor(needed: number, remaining: number, cap: number) {
    super(`This call costs ${needed} credits; the session's spend cap of ${cap} leaves ${remaining}.`, {
      code: 'SPEND_CAP_EXCEEDED',
      status: 402,
      retryable: false,
      next: 'Ask the person to raise the cap (spendCapCredits / MEDIAGEN_MCP_SPEND_CAP) or start a new session.',
    });
    this.needed = needed;
    this.remaining = remaining;
  }
}

/**
 * A thrown error as a tool result the agent can read (`isError: true`): the typed error's code,
 * message and next step. Core's messages are already bounded and redacted (no API key, no
 * link signature); anything that is not a `MediaGenError` is the server's own fault and its
 * text is not shown, since it may carry anything.
 */
export function toolError(error: unknown): CallToolResult {
  const body = isMediaGenError(error)
    ? { error: error.code, message: error.message, retryable: error.retryable, ...(error.next ? { next: error.next } : {}) }
    : { error: 'INTERNAL_ERROR', message: 'The MCP server failed on this call; its log has the details.', retryable: true };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/** The owner has no generation by this id: the same answer as another owner's id, as the service gives. */
export function notFound(id: string): NotFoundError {
  return new NotFoundError(`No generation ${id.slice(0, 80)} of yours.`, { status: 404, code: 'NOT_FOUND', retryable: false });
}

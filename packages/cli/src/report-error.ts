import { isMediaGenError, ParamsValidationError } from '@mediagen/core';
import type { Io } from './io';
import { styled } from './terminal-text';

/** For errors that carry no `next` of their own (no response, so no hint from the service). */
const FALLBACK_HINTS: Record<string, string> = {
  CONNECTION_ERROR: 'Check --base-url or MEDIAGEN_BASE_URL; for a local service, start one with: mediagen emulator',
  TIMEOUT: 'The service did not answer in time; try again (a submit with the same --idempotency-key is never billed twice).',
};

/**
 * One clear line: what went wrong, its code, and the contract's `next` hint; the request id
 * when the service answered. Params problems list every issue under it.
 */
export function reportError(io: Io, error: unknown): void {
  const { color } = io;
  if (!isMediaGenError(error)) {
    io.err(styled`${color.red('error')} unexpected: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const hint = error.next ?? FALLBACK_HINTS[error.code];
  // Code, message, hint and request id are the service's text: each is escaped as it is placed.
  const next = hint ? styled` ${color.dim('→')} ${hint}` : '';
  const request = error.requestId ? color.dim(` [${error.requestId}]`) : '';
  if (error instanceof ParamsValidationError) {
    const next = styled` ${color.dim('→')} Fix the listed params; mediagen models --json shows what each model accepts.`;
    const count = `${error.issues.length} invalid param${error.issues.length === 1 ? '' : 's'}`;
    io.err(styled`${color.red('error')} ${count} for ${error.model} (${error.code})${next}`);
    for (const issue of error.issues) io.err(styled`  ${color.bold(issue.field)}: ${issue.message}`);
    return;
  }
  io.err(styled`${color.red('error')} ${error.message} (${error.code})${next}${request}`);
}

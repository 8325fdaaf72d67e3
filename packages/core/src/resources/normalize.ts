import { text } from '../params/read';
import type { Generation } from '../types';

/**
 * Brings a status read to the current form. An earlier form of the contract sent `error`
 * as a bare string code with a separate `message`; apps see the object form either way.
 */
export function normalizeGeneration(raw: Generation): Generation {
  const error = raw.error as unknown;
  if (typeof error === 'string') {
    raw.error = { code: error, message: text((raw as Generation & { message?: unknown }).message) ?? '', retryable: false };
  } else if (raw.status === 'failed' && (error === undefined || error === null)) {
    raw.error = { code: 'unknown', message: 'The service reported a failure without details.', retryable: false };
  }
  return raw;
}

export function isTerminal(generation: Pick<Generation, 'status'>): boolean {
  return generation.status === 'completed' || generation.status === 'failed';
}

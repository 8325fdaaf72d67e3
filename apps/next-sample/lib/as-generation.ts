import type { Generation } from '@mediagen/core';
import type { StoredGeneration } from './store';

/** A stored record in the status route's answer shape (a Generation, plus what the app adds: prompt, source, webhooks). */
export function asGeneration(stored: StoredGeneration): Generation {
  const { error, ...rest } = stored;
  return {
    ...rest,
    status: stored.status as Generation['status'],
    credits_used: stored.credits_used ?? 0,
    duration_ms: null,
    request_id: '',
    ...(error ? { error: { ...error, retryable: false } } : {}),
  };
}

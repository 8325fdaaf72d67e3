import type { GenerateParams, Generation } from '../types';
import type { GenerationEta } from './eta';
import type { GenerationRecord } from './record';

/**
 * A record as the ledger's readers see it: the Generation resource (wire field names) with
 * the ledger's own fields. A submit not yet answered reads as `pending` with a null
 * `generation_id`; a refused one as `failed` with its `error`.
 */
export interface LedgerGeneration extends KnownGenerationFields {
  /** Null while the submit is unanswered or when it was refused. */
  generation_id: string | null;
  /** The key the submit was sent with: a resend with it never bills twice. */
  idempotency_key: string;
  /** False once the service no longer knows the generation: its links are gone (null here). */
  available: boolean;
  /** True while the intent is written but the service's answer not yet recorded. */
  submitting: boolean;
  /**
   * Its owner stopped it (`ledger.cancel`). With `status: 'failed'` and error code `ABORTED` it
   * was never sent (nothing charged); otherwise it goes on, billed, and its result is kept.
   */
  abandoned: boolean;
  /**
   * The params it was submitted with (its prompt, for one), which the service's resource does
   * not carry. The owner's own input: served only to that owner (`get`/`list` check it).
   */
  params: GenerateParams;
  /** While it runs: an estimate of the time it has left, from this app's past renders (`ledger.eta`). */
  eta?: GenerationEta;
}

/** The resource's named fields without its index signature (which `Omit` would keep alone). */
type KnownGenerationFields = {
  [K in keyof Generation as string extends K ? never : K extends 'generation_id' ? never : K]: Generation[K];
} & { [key: string]: unknown };

export function viewOf(record: GenerationRecord): LedgerGeneration {
  const g = record.generation;
  const base: LedgerGeneration = {
    ...(g ?? {}),
    generation_id: record.generation_id,
    status: record.status === 'submitting' ? 'pending' : record.status,
    model: g?.model ?? record.params.model,
    output_url: null,
    output_urls: null,
    credits_used: g?.credits_used ?? 0,
    duration_ms: g?.duration_ms ?? null,
    created_at: g?.created_at || new Date(record.created_at).toISOString(),
    completed_at: g?.completed_at ?? null,
    request_id: g?.request_id ?? '',
    idempotency_key: record.key,
    available: !record.unavailable,
    submitting: record.status === 'submitting',
    abandoned: record.abandoned,
    params: record.params,
  };
  if (record.error && !g?.error) base.error = record.error;
  const urls = record.outputs ?? (record.unavailable ? null : (g?.output_urls ?? (g?.output_url ? [g.output_url] : null)));
  if (urls && urls.length > 0) {
    base.output_urls = urls;
    base.output_url = urls[0] ?? null;
  }
  return base;
}

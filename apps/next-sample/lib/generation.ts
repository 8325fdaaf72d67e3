import type { LedgerGeneration } from '@mediagen/core/ledger';

/**
 * A generation as the studio shows it: the ledger's record (`GET /api/generations`), or the
 * page's own entry for a submit just answered. `available: false` once the service no longer
 * knows it (its links are gone): the gallery says so instead of showing a broken image.
 */
export type StudioGeneration = Pick<
  LedgerGeneration,
  'model' | 'status' | 'output_url' | 'output_urls' | 'created_at' | 'completed_at' | 'available'
> & {
  /** Null while its submit is not answered yet (after a crash mid-submit, say): its key names it. */
  generation_id: string | null;
  /** The key the submit was sent with; the ledger's entries have it, a 202 just answered does not. */
  idempotency_key?: string;
  /** The intent is written, the service's answer not recorded yet: it may already be billed. */
  submitting?: boolean;
  credits_used: number | null;
  /** What its owner submitted (the ledger serves it only to them). */
  params?: { prompt?: unknown };
  error?: { code: string; message: string } | null;
};

/** What names it to the routes: its generation id, or while it has none, its idempotency key. */
export function cardId(g: StudioGeneration): string {
  return g.generation_id ?? g.idempotency_key ?? '';
}

/** The same entry, whether it carries its generation id yet or not (an intent becomes a generation). */
export function sameEntry(a: StudioGeneration, b: StudioGeneration): boolean {
  if (a.idempotency_key !== undefined && a.idempotency_key === b.idempotency_key) return true;
  return a.generation_id !== null && a.generation_id === b.generation_id;
}

/** The prompt it was submitted with, if any. */
export function promptOf(g: StudioGeneration): string | null {
  return typeof g.params?.prompt === 'string' ? g.params.prompt : null;
}

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
  generation_id: string;
  credits_used: number | null;
  /** What its owner submitted (the ledger serves it only to them). */
  params?: { prompt?: unknown };
  error?: { code: string; message: string } | null;
};

/** The prompt it was submitted with, if any. */
export function promptOf(g: StudioGeneration): string | null {
  return typeof g.params?.prompt === 'string' ? g.params.prompt : null;
}

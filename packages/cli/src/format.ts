import type { Generation, Model } from '@mediagen/core';

/** Left-aligned columns, two spaces apart; the last column is not padded. */
export function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, [...cell].length);
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - [...cell].length)))
      .join('  ')
      .trimEnd(),
  );
}

/** The account's live price of the default request when the list has it, else the band's floor. */
export function priceOf(model: Model): string {
  const band = model.credits_band && typeof model.credits_band === 'object' ? model.credits_band : undefined;
  const min = text(band?.min);
  const range = band ? (band.flat || band.min === band.max ? min : `${min}-${text(band.max)}`) : '?';
  return typeof model.credits_from === 'number' ? `${model.credits_from} (${range})` : range;
}

/** A wire value as text; anything not a plain string, number or boolean shows as `?`. */
export function text(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '?';
}

export function thousands(n: number): string {
  return Number.isFinite(n) ? n.toLocaleString('en-US') : String(n);
}

export function seconds(ms: number | null | undefined): string {
  return typeof ms === 'number' ? `${(ms / 1000).toFixed(1)}s` : '-';
}

/** `'…'` quoting for a POSIX shell, so a printed command can be pasted back as is. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * What a failed generation cost: refunded in almost every case, forfeited on a policy flag. It
 * says "refunded" only when the service says nothing was kept (`credits_used` 0); a
 * `credits_used` that is no whole number (missing, null, text) says nothing either way, and
 * the line says so rather than claim a refund.
 */
export function failureCharge(generation: Generation): string {
  const used: unknown = generation.credits_used;
  if (typeof used !== 'number' || !Number.isInteger(used) || used < 0) return 'charge unknown (the service sent no credits_used)';
  if (generation.error?.code === 'CONTENT_POLICY_VIOLATION') return `${used} credits forfeited (flagged by safety review)`;
  return used > 0 ? `${used} credits charged` : `${used} credits charged (refunded)`;
}

/**
 * The service's verdict that resubmitting may succeed: `retryable: true` only. Anything else
 * (`"false"`, `1`, missing) is not a yes, since a resubmit that fails again is billed again.
 */
export function mayRetry(generation: Generation): boolean {
  return generation.error?.retryable === true;
}

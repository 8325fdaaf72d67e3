import type { ModelList } from '@mediagen/core';
import { priceOf, table, text, thousands } from './format';

/**
 * The `models` table and its summary line. Reads the list defensively: a malformed entry is
 * shown as far as it can be, never a crash (the list comes from the network).
 */
export function modelTable(list: ModelList): { lines: string[]; summary: string } {
  const models = Array.isArray(list?.models) ? list.models : [];
  const rows = [['SLUG', 'KIND', 'MODES', 'CREDITS (RANGE)']];
  for (const m of models) {
    if (!m || typeof m !== 'object') continue;
    let modes = Array.isArray(m.modes) ? m.modes.map(text).join(', ') : '';
    // Listed, but its submits answer 422 MODEL_NOT_API_SUPPORTED (only when the list says so).
    if (m.api_supported === false) modes += `${modes ? ' · ' : ''}not available through the API`;
    rows.push([text(m.slug), text(m.kind), modes, priceOf(m)]);
  }
  const rate = list?.rate_limit;
  const balance = typeof list?.credits_balance === 'number' ? thousands(list.credits_balance) : '?';
  const summary = `${rows.length - 1} models · tier ${text(list?.tier)} · ${balance} credits · ${text(rate?.per_minute)}/min, ${text(rate?.max_concurrent)} at once`;
  return { lines: table(rows), summary };
}

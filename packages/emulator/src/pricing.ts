import type { PricingSource } from '@mediagen/core';
import type { Account } from './accounts.js';
import { type CatalogEntry, defaultRequest, entries, type Normalized } from './catalog.js';

const defaultPrice = new Map<string, number>(entries.map((e) => [e.model.slug, e.price(defaultRequest(e))]));

export interface Quote {
  credits: number;
  source: PricingSource;
}

/**
 * An override N means the account pays N for the model's default request; every other
 * request keeps the catalog's ratio to that default price (design.md).
 */
export function quote(account: Account, entry: CatalogEntry, p: Normalized): Quote {
  const base = entry.price(p);
  const override = account.overrides[entry.model.slug];
  if (override === undefined) return { credits: base, source: 'catalog_default' };
  const def = defaultPrice.get(entry.model.slug) ?? 0;
  const credits = def === 0 ? override : Math.round((base * override) / def);
  return { credits: Math.max(0, credits), source: 'user_override' };
}

/** `credits_from` of the model list: the live per-account price of the default request. */
export const creditsFrom = (account: Account, entry: CatalogEntry): number => quote(account, entry, defaultRequest(entry)).credits;

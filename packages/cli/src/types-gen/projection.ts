import { createHash } from 'node:crypto';
import type { Model, ModelList } from '@mediagen/core';
import { cleanSpecs } from '../params/spec';

/**
 * The part of a model entry the declaration file is made from. Prices (`credits_*`) and
 * account figures (tier, balance) are left out: they change without changing any type, and
 * `types --check` must fail only when the types would.
 */
export interface TypedModel {
  slug: string;
  name: string;
  kind: string;
  description: string;
  modes: string[];
  params: Model['params'];
  prompt_max_chars: number | undefined;
  enhance_supported: boolean;
}

export function project(list: Pick<ModelList, 'models'>): TypedModel[] {
  const models = Array.isArray(list.models) ? list.models : [];
  const seen = new Set<string>();
  return (
    models
      .filter((m) => typeof m?.slug === 'string' && m.slug !== '')
      // One entry per slug: a repeated one would be a duplicate property in the declarations.
      .filter((m) => !seen.has(m.slug) && Boolean(seen.add(m.slug)))
      .map((m) => ({
        slug: m.slug,
        name: str(m.name),
        kind: str(m.kind),
        description: str(m.description),
        modes: Array.isArray(m.modes) ? m.modes.filter((mode) => typeof mode === 'string') : [],
        params: cleanSpecs(m.params),
        prompt_max_chars: typeof m.prompt_max_chars === 'number' && Number.isFinite(m.prompt_max_chars) ? m.prompt_max_chars : undefined,
        enhance_supported: m.enhance_supported === true,
      }))
      .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
  );
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** JSON with object keys sorted at every level: the same list always gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export function listHash(models: readonly TypedModel[]): string {
  return createHash('sha256').update(canonicalJson(models)).digest('hex');
}

import type { ParamSpec } from '@mediagen/core';

/**
 * A param spec from the network reduced to the fields this CLI reads, each of the type the
 * contract gives it; anything else is dropped. Everything downstream (messages, the generated
 * declarations) then works on values that can be printed without surprises.
 */
export function cleanSpec(raw: unknown): ParamSpec | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const spec: ParamSpec = { type: (typeof r.type === 'string' ? r.type : 'unknown') as ParamSpec['type'] };
  if (r.required === true) spec.required = true;
  if (Array.isArray(r.values)) spec.values = r.values.filter((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)));
  if (typeof r.default === 'string' || typeof r.default === 'boolean' || (typeof r.default === 'number' && Number.isFinite(r.default))) {
    spec.default = r.default;
  }
  for (const key of ['min', 'max', 'max_length'] as const) {
    const n = r[key];
    if (typeof n === 'number' && Number.isFinite(n)) spec[key] = n;
  }
  if (typeof r.presets_only === 'boolean') spec.presets_only = r.presets_only;
  const byQuality = r.values_by_quality;
  if (byQuality && typeof byQuality === 'object' && !Array.isArray(byQuality)) {
    spec.values_by_quality = Object.fromEntries(
      Object.entries(byQuality)
        .filter(([, sizes]) => Array.isArray(sizes))
        .map(([quality, sizes]) => [quality, (sizes as unknown[]).filter((s): s is string => typeof s === 'string')]),
    );
  }
  return spec;
}

/** Every spec of a model's `params`, cleaned; entries that are not specs are dropped. */
export function cleanSpecs(params: unknown): Record<string, ParamSpec> {
  if (!params || typeof params !== 'object' || Array.isArray(params)) return {};
  const out: Record<string, ParamSpec> = {};
  for (const [key, raw] of Object.entries(params)) {
    const spec = cleanSpec(raw);
    if (spec) out[key] = spec;
  }
  return out;
}

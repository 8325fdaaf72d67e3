import type { Model, ParamSpec } from '@mediagen/core';
import { effectiveLimits, SEED_MAX, SEED_MIN, TYPICAL_RENDER_SECONDS } from '@mediagen/core/wire';

type JsonSchema = Record<string, unknown>;

/**
 * One model's submit body as a JSON Schema, from its entry in the account's live list: the
 * values, ranges and defaults the service enforces for this model (the server still validates
 * with core's `validateParams`, which is the authority; this is what an agent reads).
 */
export function modelParamsSchema(model: Model): JsonSchema {
  const limits = effectiveLimits(model);
  const properties: Record<string, JsonSchema> = { model: { const: model.slug } };
  const required = ['model'];
  for (const [key, spec] of Object.entries(model.params ?? {}) as [string, ParamSpec | undefined][]) {
    if (!spec || typeof spec !== 'object') continue;
    const schema = specSchema(spec);
    if (key === 'prompt') schema.maxLength = limits.promptMax;
    if (key === 'number_results') Object.assign(schema, { minimum: limits.numberResults.min, maximum: limits.numberResults.max });
    if (key === 'reference_images') Object.assign(schema, { minItems: limits.referenceImages.min, maxItems: limits.referenceImages.max });
    if (key === 'seed') Object.assign(schema, { minimum: spec.min ?? SEED_MIN, maximum: spec.max ?? SEED_MAX });
    properties[key] = schema;
    if (spec.required) required.push(key);
  }
  properties.negative_prompt = { type: 'string', maxLength: limits.negativePromptMax };
  if (model.enhance_supported) properties.enhance = { type: 'boolean', description: 'Prompt-fitting pass: a flat 20 credits more.' };
  return { type: 'object', properties, required, additionalProperties: true };
}

function specSchema(spec: ParamSpec): JsonSchema {
  const out: JsonSchema = {};
  switch (spec.type) {
    case 'enum':
      if (Array.isArray(spec.values)) out.enum = spec.values;
      break;
    case 'number':
    case 'integer':
      out.type = spec.type === 'integer' ? 'integer' : 'number';
      if (Array.isArray(spec.values)) out.enum = spec.values;
      break;
    case 'boolean':
      out.type = 'boolean';
      break;
    case 'string[]':
      out.type = 'array';
      out.items = { type: 'string' };
      break;
    default:
      out.type = 'string';
      if (typeof spec.max_length === 'number') out.maxLength = spec.max_length;
  }
  if (typeof spec.min === 'number' && spec.type !== 'string[]') out.minimum = spec.min;
  if (typeof spec.max === 'number' && spec.type !== 'string[]') out.maximum = spec.max;
  if (spec.default !== undefined) out.default = spec.default;
  if (spec.values_by_quality) out['x-values-by-quality'] = spec.values_by_quality;
  return out;
}

/** What `describe_model` answers: the entry's facts an agent plans with, and its params schema. */
export function describeModel(model: Model): Record<string, unknown> {
  const typical = TYPICAL_RENDER_SECONDS[model.kind];
  return {
    slug: model.slug,
    name: model.name,
    kind: model.kind,
    category: model.category,
    description: model.description,
    modes: model.modes,
    price: priceOf(model),
    limits: effectiveLimits(model),
    typical_render_seconds: typical ? { min: typical[0], max: typical[1] } : null,
    enhance_supported: model.enhance_supported,
    ...(model.api_supported === false ? { api_supported: false } : {}),
    example_request: model.example_request,
    params_schema: modelParamsSchema(model),
  };
}

/** The price facts of the entry, as the list gives them (the exact cost of a request is `estimate`'s). */
export function priceOf(model: Model): Record<string, unknown> {
  return {
    credits_from: model.credits_from ?? null,
    band: model.credits_band,
    ...(model.credits_by_quality ? { by_quality: model.credits_by_quality } : {}),
    ...(model.credits_by_references ? { by_references: model.credits_by_references } : {}),
  };
}

/** One line per model, for tool descriptions: an agent sees what exists and its price without a call. */
export function modelLine(model: Model): string {
  const price = model.credits_from ?? model.credits_band?.min;
  const params = Object.keys(model.params ?? {}).join(', ');
  return `- ${model.slug} (${model.kind}): ${model.name}; from ${price ?? '?'} credits; params: ${params || 'none'}`;
}

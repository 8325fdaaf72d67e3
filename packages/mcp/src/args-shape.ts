import type { Model } from '@mediagen/core';
import { NEGATIVE_PROMPT_MAX, NUMBER_RESULTS_MAX, PROMPT_MAX, REFERENCE_IMAGES_MAX, SEED_MAX, SEED_MIN } from '@mediagen/core/wire';
import { z } from 'zod';

/**
 * The input schema of `estimate` and `generate`: every submit field, bounded by the contract's
 * limits, `model` an enum of the account's live list. Per-model values are too many for one
 * schema (each model has its own sets): the description names them, `describe_model` gives the
 * model's exact schema, and core's `validateParams` refuses what the model would refuse.
 */
export function paramsShape(models: readonly Model[] | undefined, files = false) {
  const slugs = (models ?? []).filter((m) => m.api_supported !== false).map((m) => m.slug);
  // Where the server was given storage for inputs, a file on this machine is an input too.
  const file = files ? ', or the path of a file on this machine (./photo.png, /home/me/clip.mp4)' : '';
  const valuesOf = (key: string) => {
    const seen = new Set<string>();
    for (const m of models ?? [])
      for (const v of (m.params?.[key as keyof Model['params']]?.values ?? []) as unknown[]) seen.add(String(v));
    return seen.size > 0 ? ` Values across models: ${[...seen].slice(0, 40).join(', ')}; each model takes its own (describe_model).` : '';
  };
  return {
    model: (slugs.length > 0 ? z.enum(slugs as [string, ...string[]]) : z.string().min(1)).describe('Model slug (list_models).'),
    prompt: z.string().max(PROMPT_MAX).optional().describe('What to generate. A model may allow fewer characters (describe_model).'),
    negative_prompt: z.string().max(NEGATIVE_PROMPT_MAX).optional(),
    aspect_ratio: z
      .string()
      .optional()
      .describe(`Aspect ratio.${valuesOf('aspect_ratio')}`),
    size: z
      .string()
      .optional()
      .describe(`Image size WIDTHxHEIGHT, one of the model's.${valuesOf('size')}`),
    quality: z
      .string()
      .optional()
      .describe(`Quality tier.${valuesOf('quality')}`),
    resolution: z
      .string()
      .optional()
      .describe(`Resolution.${valuesOf('resolution')}`),
    duration: z.number().optional().describe('Seconds (video, audio).'),
    audio: z.boolean().optional().describe('Synced audio track (some video models).'),
    input_image: z.string().optional().describe(`https link, or the id of one of your completed generations${file}.`),
    input_video: z.string().optional().describe(`https link, or the id of one of your completed generations${file}.`),
    input_audio: z.string().optional().describe(`https link${file}.`),
    reference_images: z
      .array(z.string())
      .max(REFERENCE_IMAGES_MAX)
      .optional()
      .describe(`https links${file ? ', or local file paths' : ''}.`),
    seed: z.number().int().min(SEED_MIN).max(SEED_MAX).optional(),
    number_results: z.number().int().min(1).max(NUMBER_RESULTS_MAX).optional(),
    enhance: z.boolean().optional().describe('Prompt-fitting pass, 20 credits more; only where describe_model says enhance_supported.'),
  };
}

export type ParamsArgs = { [K in keyof ReturnType<typeof paramsShape>]?: unknown } & { model: string };

/** The submit body from tool arguments: the fields given, none of the tool's own (`request_key`, `confirm`). */
export function paramsFrom(args: Record<string, unknown>, shape: Record<string, unknown>): Record<string, unknown> & { model: string } {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) if (args[key] !== undefined) out[key] = args[key];
  return out as Record<string, unknown> & { model: string };
}

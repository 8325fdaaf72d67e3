import type { GenerateParams, Model, ParamSpec } from '@mediagen/core';
import { INPUT_KINDS, type InputField, type InputKind } from '@mediagen/core/wire';
import type { WithFiles } from '@mediagen/next/client';

/** How the contract's categories are labelled and ordered in the picker (the service studio's tabs). */
export const CATEGORIES: Array<{ id: Model['category']; label: string }> = [
  { id: 'image', label: 'Image' },
  { id: 'video', label: 'Video' },
  { id: 'audio', label: 'Audio' },
  { id: 'text', label: 'Text' },
  { id: 'utility', label: 'Utility' },
  { id: 'threed', label: '3D' },
];

/**
 * Whether the model can be used through the API: not when the list says `api_supported: false`
 * (its submits answer 422 MODEL_NOT_API_SUPPORTED). The field is an addition the emulator
 * publishes; a list without it (the service today) leaves every model usable, and a refused
 * submit shows the service's own message.
 */
export function usableThroughApi(model: Model): boolean {
  return model.api_supported !== false;
}

/** The model the studio opens on: `image-fast` when usable, else the first usable one. */
export function firstUsable(models: Model[]): Model | undefined {
  const usable = models.filter(usableThroughApi);
  return usable.find((m) => m.slug === 'image-fast') ?? usable[0];
}

/**
 * The form's values: generate params, where a field left empty is not sent. An input field holds a
 * link (or a generation id) typed in, or a `File` chosen or dropped: `useGenerate` uploads it.
 */
export type FormValues = Record<string, string | number | boolean | Array<string | File> | File | undefined>;

const IMAGE_INPUT_MODES = /^(image-to-|image-editing|image-upscaling)/;
/** A mode that starts from a clip (`video-to-video`, `video-editing`, `video-extend`…) or a recording. */
const VIDEO_INPUT_MODES = /^video-(to-|edit|extend)/;
const AUDIO_INPUT_MODES = /^(audio-to-|lipsync)/;

/** Whether the model takes an `input_image` (its modes say so, or its example request carries one). */
export function takesInputImage(model: Model): boolean {
  return model.example_request?.input_image !== undefined || model.modes.some((mode) => IMAGE_INPUT_MODES.test(mode));
}

/** Required when the model has no prompt and its example is driven by an input image (an upscaler). */
export function needsInputImage(model: Model): boolean {
  return !model.params.prompt && model.example_request?.input_image !== undefined;
}

/**
 * The single-file inputs the model takes, from what the list says (its modes, its example
 * request): `input_image` for image-to-*, editing and upscaling, `input_video` for video-to-*,
 * `input_audio` for audio-to-* and lipsync. (`reference_images` is one of its params when it has it.)
 */
export function inputFieldsOf(model: Model): Array<Exclude<InputField, 'reference_images'>> {
  const example = model.example_request ?? {};
  const fields: Array<Exclude<InputField, 'reference_images'>> = [];
  if (takesInputImage(model)) fields.push('input_image');
  if (example.input_video !== undefined || model.modes.some((mode) => VIDEO_INPUT_MODES.test(mode))) fields.push('input_video');
  if (example.input_audio !== undefined || model.modes.some((mode) => AUDIO_INPUT_MODES.test(mode))) fields.push('input_audio');
  return fields;
}

/** The kind of media an input field takes (the wire's table). */
export const kindOf = (field: InputField): InputKind => INPUT_KINDS[field];

/**
 * What is missing before the model can be priced and run, in words (an upscaler with no image),
 * or null. The list does not mark inputs required; a model with no prompt whose example runs on
 * an input needs that input.
 */
export function missingInput(model: Model, values: FormValues): string | null {
  if (!needsInputImage(model) || hasValue(values.input_image)) return null;
  const verb = model.modes.some((mode) => /upscal/.test(mode)) ? 'upscale' : 'work on';
  return `Add an image to ${verb} to see the price`;
}

const hasValue = (value: FormValues[string]) => value instanceof File || (typeof value === 'string' && value.trim() !== '');

/**
 * The params as the page's schema check reads them: a chosen file stands as a link (the schema
 * checks links and ids; the file itself is checked by the app when it is uploaded).
 */
export function forValidation(params: WithFiles<GenerateParams>): GenerateParams {
  const link = (v: unknown) => (v instanceof Blob ? 'https://upload.invalid/file' : v);
  const out: Record<string, unknown> = { ...params };
  for (const field of Object.keys(INPUT_KINDS)) {
    const value = out[field];
    if (value !== undefined) out[field] = Array.isArray(value) ? value.map(link) : link(value);
  }
  return out as GenerateParams;
}

/** Sizes allowed at the chosen quality (`values_by_quality`), else all the model's sizes. */
export function sizesFor(spec: ParamSpec, quality: unknown): string[] {
  const all = (spec.values ?? []).map(String);
  const byQuality = typeof quality === 'string' ? spec.values_by_quality?.[quality] : undefined;
  return byQuality ? all.filter((size) => byQuality.includes(size)) : all;
}

/** A fresh form for `model`: its defaults and its example request's values. */
export function initialValues(model: Model): FormValues {
  const values: FormValues = {};
  for (const [key, spec] of Object.entries(model.params) as Array<[string, ParamSpec]>) {
    if (key === 'prompt' || key === 'seed' || key === 'reference_images') continue;
    if (spec.default !== undefined) values[key] = spec.default;
  }
  const example = model.example_request ?? { model: model.slug };
  for (const key of Object.keys(model.params)) {
    if (key !== 'prompt' && example[key] !== undefined) values[key] = example[key] as FormValues[string];
  }
  if (model.params.prompt) values.prompt = '';
  return values;
}

/** The generate params the form describes: only the model's own params, empty fields left out. */
export function toParams(model: Model, values: FormValues): WithFiles<GenerateParams> {
  const params: WithFiles<GenerateParams> = { model: model.slug };
  const keys = [...Object.keys(model.params), ...inputFieldsOf(model), ...(model.enhance_supported ? ['enhance'] : [])];
  for (const key of keys) {
    const value = values[key];
    if (value === undefined || value === '' || (Array.isArray(value) && value.filter(Boolean).length === 0)) continue;
    if (key === 'enhance' && value !== true) continue;
    params[key] = Array.isArray(value)
      ? value.filter(Boolean)
      : typeof value === 'string' && INPUT_KINDS[key as InputField]
        ? value.trim()
        : value;
  }
  return params;
}

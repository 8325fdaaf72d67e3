import type { GenerateParams, Model, ParamSpec } from '@mediagen/core';

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

/** The form's values: generate params, where a field left empty is not sent. */
export type FormValues = Record<string, string | number | boolean | string[] | undefined>;

const IMAGE_INPUT_MODES = /^(image-to-|image-editing|image-upscaling)/;

/** Whether the model takes an `input_image` (its modes say so, or its example request carries one). */
export function takesInputImage(model: Model): boolean {
  return model.example_request?.input_image !== undefined || model.modes.some((mode) => IMAGE_INPUT_MODES.test(mode));
}

/** Required when the model has no prompt and its example is driven by an input image (an upscaler). */
export function needsInputImage(model: Model): boolean {
  return !model.params.prompt && model.example_request?.input_image !== undefined;
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
export function toParams(model: Model, values: FormValues): GenerateParams {
  const params: GenerateParams = { model: model.slug };
  const keys = [
    ...Object.keys(model.params),
    ...(takesInputImage(model) ? ['input_image'] : []),
    ...(model.enhance_supported ? ['enhance'] : []),
  ];
  for (const key of keys) {
    const value = values[key];
    if (value === undefined || value === '' || (Array.isArray(value) && value.filter(Boolean).length === 0)) continue;
    if (key === 'enhance' && value !== true) continue;
    params[key] = Array.isArray(value) ? value.filter(Boolean) : value;
  }
  return params;
}

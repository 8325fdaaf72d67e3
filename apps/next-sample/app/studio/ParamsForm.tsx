'use client';

import type { Model, ParamSpec, ParamsIssue } from '@mediagen/core';
import { ENHANCE_CREDITS, effectiveLimits, MEDIA_FORMATS, SEED_MAX, SEED_MIN } from '@mediagen/core/wire';
import type { UploadProgress } from '@mediagen/next/client';
import { type ReactNode, useEffect, useState } from 'react';
import { InputDrop } from './InputDrop';
import { type FormValues, inputFieldsOf, kindOf, needsInputImage, sizesFor } from './schema';

interface ParamsFormProps {
  model: Model;
  values: FormValues;
  onChange(values: FormValues): void;
  issues: Array<Pick<ParamsIssue, 'field' | 'message'>>;
  /** Bytes sent of the files being uploaded. */
  uploadProgress?: UploadProgress | undefined;
  /** A file the app refused, in words. */
  uploadProblem?: string | null | undefined;
}

const LABELS: Record<string, string> = {
  prompt: 'Prompt',
  aspect_ratio: 'Aspect ratio',
  size: 'Size',
  quality: 'Quality',
  resolution: 'Resolution',
  duration: 'Duration',
  audio: 'Audio track',
  reference_images: 'Reference images',
  number_results: 'Results',
  seed: 'Seed',
  input_image: 'Input image',
  input_video: 'Input clip',
  input_audio: 'Input audio',
};

const IMAGE_TYPES = Object.values(MEDIA_FORMATS)
  .filter((format) => format.kind === 'image')
  .map((format) => format.type)
  .join(',');

/** A small preview of a chosen image file. */
function Thumbnail({ file }: { file: File }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const made = URL.createObjectURL(file);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [file]);
  // biome-ignore lint/performance/noImgElement: a local blob: preview, nothing for next/image to optimise
  return url ? <img src={url} alt="" className="thumb" /> : null;
}

/**
 * The model's own params and nothing else: enums as choices, numbers within the schema's limits
 * (the contract's and the model's combined by `effectiveLimits`, the figures `validateParams` checks).
 */
export function ParamsForm({ model, values, onChange, issues, uploadProgress, uploadProblem }: ParamsFormProps) {
  const limits = effectiveLimits(model);
  const set = (key: string, value: FormValues[string]) => onChange({ ...values, [key]: value });
  const specs = model.params as Record<string, ParamSpec>;
  const issueFor = (key: string) => issues.find((issue) => issue.field === key || issue.field.startsWith(`${key}[`));
  const field = (key: string, control: ReactNode, hint?: string, wide = false) => {
    const issue = issueFor(key);
    return (
      <div className={`field${wide ? ' wide' : ''}`} key={key} data-param={key}>
        <label htmlFor={`param-${key}`}>{LABELS[key] ?? key}</label>
        {control}
        {issue ? (
          <span className="issue" id={`issue-${key}`}>
            {issue.message}
          </span>
        ) : hint ? (
          <span className="hint">{hint}</span>
        ) : null}
      </div>
    );
  };
  const choice = (key: string, options: Array<{ value: string; label: string }>, optional: boolean) => (
    <select
      id={`param-${key}`}
      value={values[key] === undefined ? '' : String(values[key])}
      onChange={(e) => {
        const raw = e.target.value;
        const spec = specs[key];
        const numeric = spec?.type === 'number' || spec?.type === 'integer' || spec?.values?.some((v) => typeof v === 'number');
        set(key, raw === '' ? undefined : numeric ? Number(raw) : raw);
      }}
      aria-invalid={issueFor(key) ? true : undefined}
    >
      {optional ? <option value="">Default</option> : null}
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
  const number = (key: string, min: number | undefined, max: number | undefined, placeholder?: string) => (
    <input
      id={`param-${key}`}
      type="number"
      inputMode="numeric"
      step={1}
      min={min}
      max={max}
      placeholder={placeholder}
      value={values[key] === undefined ? '' : String(values[key])}
      onChange={(e) => set(key, e.target.value === '' ? undefined : Number(e.target.value))}
      aria-invalid={issueFor(key) ? true : undefined}
    />
  );

  const fields: ReactNode[] = [];
  const prompt = specs.prompt;
  if (prompt) {
    const limit = limits.promptMax;
    const text = typeof values.prompt === 'string' ? values.prompt : '';
    // No `maxLength`: it counts UTF-16 units where the limit counts characters (an emoji is one),
    // and it would cut a pasted prompt short without a word. The count shows the limit, and the
    // schema's issue (prompt is over …) stops the submit.
    fields.push(
      field(
        'prompt',
        <textarea
          id="param-prompt"
          rows={4}
          required={prompt.required}
          placeholder={model.example_request?.prompt ?? 'Describe what to make'}
          value={text}
          onChange={(e) => set('prompt', e.target.value)}
          aria-invalid={issueFor('prompt') ? true : undefined}
        />,
        `${[...text].length} / ${limit}`,
        true,
      ),
    );
  }
  // Each input the model takes: a file from the computer (uploaded by useGenerate) or a link.
  for (const key of inputFieldsOf(model)) {
    const value = values[key];
    fields.push(
      <InputDrop
        key={key}
        field={key}
        kind={kindOf(key)}
        label={LABELS[key] ?? key}
        required={key === 'input_image' && needsInputImage(model)}
        value={value instanceof File || typeof value === 'string' ? value : undefined}
        onChange={(next) => set(key, next)}
        progress={uploadProgress}
        problem={value instanceof File ? uploadProblem : (issueFor(key)?.message ?? null)}
        takesIds={key !== 'input_audio'}
      />,
    );
  }
  for (const [key, spec] of Object.entries(specs)) {
    if (key === 'prompt') continue;
    const optional = !spec.required;
    if (key === 'size') {
      const labels = new Map((spec.options ?? []).map((o) => [o.size, o.label ?? `${o.size}${o.tag ? ` (${o.tag})` : ''}`]));
      const sizes = sizesFor(spec, values.quality ?? specs.quality?.default);
      fields.push(
        field(
          key,
          choice(
            key,
            sizes.map((s) => ({ value: s, label: labels.get(s) ?? s.replace('x', ' × ') })),
            optional,
          ),
        ),
      );
    } else if (key === 'duration' && spec.values?.length) {
      fields.push(
        field(
          key,
          choice(
            key,
            spec.values.map((v) => ({ value: String(v), label: `${v} s` })),
            optional,
          ),
        ),
      );
    } else if (key === 'duration') {
      fields.push(
        field(
          key,
          number(key, spec.min, spec.max, spec.default === undefined ? undefined : String(spec.default)),
          `${spec.min ?? '…'}–${spec.max ?? '…'} seconds`,
        ),
      );
    } else if (spec.type === 'enum' || spec.values?.length) {
      fields.push(
        field(
          key,
          choice(
            key,
            (spec.values ?? []).map((v) => ({ value: String(v), label: String(v) })),
            optional,
          ),
        ),
      );
    } else if (key === 'audio' || spec.type === 'boolean') {
      fields.push(
        <div className="field check" key={key} data-param={key}>
          <label>
            <input id={`param-${key}`} type="checkbox" checked={values[key] === true} onChange={(e) => set(key, e.target.checked)} />{' '}
            {LABELS[key] ?? key}
          </label>
        </div>,
      );
    } else if (key === 'number_results') {
      const { min, max } = limits.numberResults;
      if (max > min)
        fields.push(
          field(
            key,
            choice(
              key,
              Array.from({ length: max - min + 1 }, (_, i) => ({ value: String(min + i), label: String(min + i) })),
              false,
            ),
          ),
        );
    } else if (key === 'seed') {
      fields.push(field(key, number(key, spec.min ?? SEED_MIN, spec.max ?? SEED_MAX, 'Random')));
    } else if (key === 'reference_images') {
      const { max } = limits.referenceImages;
      const list = Array.isArray(values.reference_images) ? values.reference_images : [];
      fields.push(
        <div className="field wide" key={key} data-param={key}>
          <span className="label">
            {LABELS[key]} <span className="hint">up to {max}</span>
          </span>
          {list.map((entry, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the slot is the identity (URLs may repeat or be empty while typed)
            <div className="row" key={index}>
              {entry instanceof File ? (
                <span className="file-chip" id={`param-reference_images-${index}`}>
                  <Thumbnail file={entry} /> {entry.name}
                </span>
              ) : (
                <input
                  id={`param-reference_images-${index}`}
                  type="url"
                  aria-label={`Reference image ${index + 1}`}
                  placeholder="https://…"
                  value={entry}
                  onChange={(e) =>
                    set(
                      key,
                      list.map((u, i) => (i === index ? e.target.value : u)),
                    )
                  }
                />
              )}
              <button
                type="button"
                className="ghost"
                onClick={() =>
                  set(
                    key,
                    list.filter((_, i) => i !== index),
                  )
                }
                aria-label={`Remove reference image ${index + 1}`}
              >
                Remove
              </button>
            </div>
          ))}
          {list.length < max ? (
            <div className="row">
              <button type="button" className="ghost" id="add-reference" onClick={() => set(key, [...list, ''])}>
                Add a link
              </button>
              <label className="ghost button-like">
                <input
                  id="add-reference-file"
                  type="file"
                  accept={IMAGE_TYPES}
                  className="visually-hidden"
                  onChange={(e) => {
                    const chosen = e.target.files?.[0];
                    e.target.value = '';
                    if (chosen) set(key, [...list, chosen]);
                  }}
                />
                Add an image from your computer
              </label>
            </div>
          ) : null}
          {issueFor(key) ? <span className="issue">{issueFor(key)?.message}</span> : null}
        </div>,
      );
    }
  }
  if (model.enhance_supported) {
    fields.push(
      <div className="field check" key="enhance" data-param="enhance">
        <label>
          <input id="param-enhance" type="checkbox" checked={values.enhance === true} onChange={(e) => set('enhance', e.target.checked)} />{' '}
          Enhance the prompt <span className="hint">+{ENHANCE_CREDITS} credits</span>
        </label>
      </div>,
    );
  }
  return (
    <div className="params" id="params" data-model={model.slug}>
      <p className="model-description muted small">{model.description}</p>
      <div className="grid">{fields}</div>
    </div>
  );
}

'use client';

import { type Model, quotePrice } from '@mediagen/core';
import { paramsSchema, type StandardSchemaV1 } from '@mediagen/core/standard-schema';
import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { StudioGeneration } from '../../lib/generation';
import { estimateGeneration, submitGeneration } from '../actions';
import { Gallery } from './Gallery';
import { ModelPicker } from './ModelPicker';
import { ParamsForm } from './ParamsForm';
import { type FormValues, firstUsable, initialValues, toParams, usableThroughApi } from './schema';

interface StudioProps {
  models: Model[];
  initialBalance: number | null;
  initialGenerations: StudioGeneration[];
  problem: string | null;
}

type Estimate = { state: 'idle' } | { state: 'checking' } | { state: 'exact'; credits: number } | { state: 'refused'; message: string };

/** One key per form submission: kept across a double click or a resend of the same form, new once it was accepted or changed. */
const newKey = () => globalThis.crypto?.randomUUID?.() ?? `k-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

export function Studio({ models, initialBalance, initialGenerations, problem }: StudioProps) {
  const usable = useMemo(() => models.filter(usableThroughApi), [models]);
  const [slug, setSlug] = useState(() => firstUsable(models)?.slug ?? '');
  const model = usable.find((m) => m.slug === slug);
  const [values, setValues] = useState<FormValues>(() => (model ? initialValues(model) : {}));
  const [balance, setBalance] = useState(initialBalance);
  const [generations, setGenerations] = useState(initialGenerations);
  const [estimate, setEstimate] = useState<Estimate>({ state: 'idle' });
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [touched, setTouched] = useState(false);
  const idempotencyKey = useRef(newKey());

  const params = useMemo(() => (model ? toParams(model, values) : undefined), [model, values]);
  // The model's Standard Schema: the rules a react-hook-form resolver or a server action would run.
  const issues = useMemo(() => {
    if (!model || !params) return [];
    const result = paramsSchema(model)['~standard'].validate(params) as StandardSchemaV1.Result<unknown>;
    return (result.issues ?? []).map((issue) => ({ field: String(issue.path?.[0] ?? ''), message: issue.message }));
  }, [model, params]);
  const quote = model && params ? quotePrice(model, params) : undefined;
  const kinds = useMemo(() => Object.fromEntries(models.map((m) => [m.slug, m.kind])), [models]);

  const pick = (next: string) => {
    const entry = usable.find((m) => m.slug === next);
    if (!entry) return;
    setSlug(next);
    setValues(initialValues(entry));
    setTouched(false);
    setError(null);
  };

  // The form changed: a new submission, so a new idempotency key.
  useEffect(() => {
    if (params) idempotencyKey.current = newKey();
  }, [params]);

  // The price from the model entry is shown at once; `estimate` confirms the exact figure.
  useEffect(() => {
    if (!params || issues.length > 0 || (model?.params.prompt?.required && !params.prompt)) {
      setEstimate({ state: 'idle' });
      return;
    }
    let live = true;
    setEstimate({ state: 'checking' });
    const timer = setTimeout(async () => {
      const result = await estimateGeneration(params).catch(() => undefined);
      if (!live) return;
      if (result?.data && typeof result.data.credits_estimate === 'number')
        setEstimate({ state: 'exact', credits: result.data.credits_estimate });
      else setEstimate(result?.error ? { state: 'refused', message: `${result.error.code}: ${result.error.message}` } : { state: 'idle' });
    }, 350);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [params, issues.length, model]);

  const refreshBalance = useCallback(async () => {
    try {
      const res = await fetch('/api/credits', { cache: 'no-store' });
      if (res.ok) setBalance(((await res.json()) as { balance: number }).balance);
    } catch {
      // The next change tries again.
    }
  }, []);

  const onSettled = useCallback(
    (settled: StudioGeneration) => {
      setGenerations((list) => list.map((g) => (g.generation_id === settled.generation_id ? settled : g)));
      void refreshBalance();
    },
    [refreshBalance],
  );

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (!model || !params || issues.length > 0 || submitting) return;
    setSubmitting(true);
    setError(null);
    try {
      const result = await submitGeneration(params, { idempotencyKey: idempotencyKey.current });
      if (result.error) {
        setError(`${result.error.code}: ${result.error.message}${result.error.next ? ` ${result.error.next}` : ''}`);
        return;
      }
      const submitted = result.data;
      idempotencyKey.current = newKey();
      setGenerations((list) => [
        {
          generation_id: submitted.generation_id,
          model: submitted.model,
          params: { prompt: params.prompt },
          status: submitted.status,
          output_url: null,
          output_urls: null,
          credits_used: submitted.credits_estimate,
          error: null,
          created_at: submitted.created_at,
          completed_at: null,
          available: true,
        },
        ...list.filter((g) => g.generation_id !== submitted.generation_id),
      ]);
      void refreshBalance();
    } catch {
      setError('The submit did not reach the server. Check your connection and try again: the same form will not be billed twice.');
    } finally {
      setSubmitting(false);
    }
  }

  const price = quote?.total;
  return (
    <div className="shell">
      <header className="topbar">
        <div className="brand">
          <span className="logo" aria-hidden="true" />
          <span>
            MediaGen <strong>Studio</strong>
          </span>
        </div>
        <div className="balance" id="balance" aria-live="polite">
          {balance === null ? '—' : balance.toLocaleString('en-US')} <span>credits</span>
        </div>
      </header>

      {problem ? (
        <p className="banner" role="alert">
          {problem}
        </p>
      ) : null}

      <main className="layout">
        <form className="panel create" onSubmit={onSubmit} noValidate aria-labelledby="create-title">
          <h1 id="create-title">Create</h1>
          <ModelPicker models={models} selected={slug} onSelect={pick} />
          {model ? (
            <>
              <ParamsForm
                model={model}
                values={values}
                onChange={setValues}
                issues={touched ? issues : issues.filter((i) => i.field !== 'prompt')}
              />
              <div className="pricebar">
                <div>
                  <div className="price" id="price" data-exact={estimate.state === 'exact' ? 'true' : 'false'}>
                    {estimate.state === 'exact' ? estimate.credits + (quote?.enhanceCredits ?? 0) : price === undefined ? '—' : price}
                    <span> credits</span>
                  </div>
                  <div className="muted small" id="price-note">
                    {estimate.state === 'exact'
                      ? `confirmed by estimate${quote?.enhanceCredits ? ' (incl. 20 for enhance)' : ''}`
                      : estimate.state === 'checking'
                        ? quote?.exact === false
                          ? 'from price · checking…'
                          : 'checking…'
                        : estimate.state === 'refused'
                          ? estimate.message
                          : 'from the model list'}
                  </div>
                </div>
                <button id="submit" type="submit" className="primary" disabled={submitting}>
                  {submitting ? 'Submitting…' : 'Generate'}
                </button>
              </div>
              <p id="error" role="alert" className="error">
                {error ?? ''}
              </p>
            </>
          ) : (
            <p className="muted">No models are available on this account.</p>
          )}
        </form>

        <section className="panel gallery" aria-labelledby="gallery-title">
          <div className="gallery-head">
            <h2 id="gallery-title">Generations</h2>
            <span className="muted small">{generations.length ? `${generations.length} so far` : ''}</span>
          </div>
          <Gallery generations={generations} kinds={kinds} onSettled={onSettled} />
        </section>
      </main>
    </div>
  );
}

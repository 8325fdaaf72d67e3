'use client';

import type { Model, SubmitResponse } from '@mediagen/core';
import { quotePrice } from '@mediagen/core';
import { paramsSchema, type StandardSchemaV1 } from '@mediagen/core/standard-schema';
import { type GenerationRequestError, type StopResult, useGenerate } from '@mediagen/next/client';
import { type FormEvent, useCallback, useEffect, useMemo, useState } from 'react';
import { type StudioGeneration, sameEntry } from '../../lib/generation';
import { listGenerations } from '../actions';
import { type Budget, BudgetChip } from './BudgetChip';
import { Gallery } from './Gallery';
import { ModelPicker } from './ModelPicker';
import { ParamsForm } from './ParamsForm';
import { QueueCard } from './QueueCard';
import { type FormValues, firstUsable, forValidation, initialValues, missingInput, toParams, usableThroughApi } from './schema';

interface StudioProps {
  models: Model[];
  initialBalance: number | null;
  initialGenerations: StudioGeneration[];
  problem: string | null;
  /** false: the cards poll the status route instead of following the event stream (the bench's baseline). */
  stream: boolean;
  /** Whether the app keeps per-user budgets (`GET /api/budget` is served): then the user's is shown. */
  budgets?: boolean;
}

/** A submit's 202 as a card, until the stream brings the generation itself. */
const cardOf = (submitted: SubmitResponse, prompt: unknown): StudioGeneration => ({
  generation_id: submitted.generation_id,
  model: submitted.model,
  params: { prompt },
  status: submitted.status,
  output_url: null,
  output_urls: null,
  credits_used: submitted.credits_estimate,
  error: null,
  created_at: submitted.created_at,
  completed_at: null,
  available: true,
});

const describe = (error: GenerationRequestError) =>
  error.status === 0
    ? 'The submit did not reach the server. Check your connection and try again: the same form will not be billed twice.'
    : (fileProblem(error) ?? budgetProblem(error) ?? `${error.code}: ${error.message}${error.next ? ` ${error.next}` : ''}`);

/** A refusal over this user's own budget (the app's limits, not the account's), in words. */
function budgetProblem(error: GenerationRequestError): string | null {
  const body = (error.body ?? {}) as { remaining_credits?: number; resets_at?: string };
  const resets = body.resets_at ? new Date(body.resets_at).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' }) : 'later';
  if (error.code === 'USER_BUDGET_EXCEEDED')
    return body.remaining_credits
      ? `This costs more than your remaining ${body.remaining_credits} credits. Pick a cheaper setting, or wait until ${resets}.`
      : `You have used all of your credits for today. They come back ${resets}.`;
  if (error.code === 'USER_CONCURRENCY_LIMIT') return 'You have as many generations running as allowed: wait for one to finish.';
  if (error.code === 'USER_RATE_LIMIT') return 'Too many submits in the last minute: wait a moment, then try again.';
  return null;
}

/** A refused upload in words (the app's messages name the limit or the formats), or null for other errors. */
function fileProblem(error: GenerationRequestError | undefined): string | null {
  if (!error) return null;
  if (error.code === 'MEDIA_NOT_ACCEPTED') return `That file cannot be used: ${error.message}`;
  if (error.code === 'UPLOAD_TOO_LARGE') return `That file is too large: ${error.message}`;
  if (error.status === 429 && error.code.startsWith('RATE')) return 'Too many files sent just now: wait a minute, then try again.';
  return null;
}

/** The message without the codes and request id a raw error carries ("422 CODE: … (request_id …)"). */
const plain = (message: string) =>
  message
    .replace(/^(?:\d{3} )?[A-Z][A-Z_]+: /, '')
    .replace(/^(?:\d{3} )?[A-Z][A-Z_]+: /, '')
    .replace(/\s*\(request_id [^)]*\)\s*$/, '');

/** Why the price could not be checked, in words: never a raw error under the price. */
function priceProblem(error: GenerationRequestError, model: Model | undefined): string {
  if (error.status === 0) return 'The price could not be checked: the app did not answer. Check your connection.';
  if (error.code === 'INPUT_VIDEO_NOT_SUPPORTED')
    return `${model?.name ?? 'This model'} cannot take a clip through the API (it bills by the clip’s exact length): remove the clip to make one from text.`;
  return fileProblem(error) ?? `The price could not be checked: ${plain(error.message)}`;
}

/**
 * The studio's layout: the params form on the left, the gallery on the right. Submitting,
 * the idempotency key per submission and the estimate are `useGenerate`'s (the JSON route,
 * `POST /api/generations` with an `Idempotency-Key`); each card follows its generation with
 * `useGeneration` (the event stream).
 */
export function Studio({ models, initialBalance, initialGenerations, problem, stream, budgets = false }: StudioProps) {
  const usable = useMemo(() => models.filter(usableThroughApi), [models]);
  const [slug, setSlug] = useState(() => firstUsable(models)?.slug ?? '');
  const model = usable.find((m) => m.slug === slug);
  const [values, setValues] = useState<FormValues>(() => (model ? initialValues(model) : {}));
  const [balance, setBalance] = useState(initialBalance);
  const [generations, setGenerations] = useState(initialGenerations);
  const [touched, setTouched] = useState(false);

  const params = useMemo(() => (model ? toParams(model, values) : undefined), [model, values]);
  // The model's Standard Schema: the rules a react-hook-form resolver or a server action would run.
  const issues = useMemo(() => {
    if (!model || !params) return [];
    // A chosen file stands as a link here: the app checks the file itself when it is uploaded.
    const result = paramsSchema(model)['~standard'].validate(forValidation(params)) as StandardSchemaV1.Result<unknown>;
    return (result.issues ?? []).map((issue) => ({ field: String(issue.path?.[0] ?? ''), message: issue.message }));
  }, [model, params]);
  const quote = model && params ? quotePrice(model, params) : undefined;
  const kinds = useMemo(() => Object.fromEntries(models.map((m) => [m.slug, m.kind])), [models]);
  // What the model cannot run without (an upscaler's image), in words: no estimate until it is there.
  const missing = model ? missingInput(model, values) : null;
  const complete = params !== undefined && issues.length === 0 && !missing && !(model?.params.prompt?.required && !params.prompt);

  const [budget, setBudget] = useState<Budget | null>(null);
  const refreshBalance = useCallback(async () => {
    try {
      // The account's wallet, and this user's own budget when the app keeps budgets.
      const [credits, mine] = await Promise.all([
        fetch('/api/credits', { cache: 'no-store' }),
        budgets ? fetch('/api/budget', { cache: 'no-store' }) : undefined,
      ]);
      if (credits.ok) setBalance(((await credits.json()) as { balance: number }).balance);
      if (mine?.ok) setBudget((await mine.json()) as Budget);
    } catch {
      // The next change tries again.
    }
  }, [budgets]);
  useEffect(() => {
    if (budgets) void refreshBalance();
  }, [budgets, refreshBalance]);

  // The price from the model entry is shown at once; the estimate confirms the exact figure.
  const generate = useGenerate({ params, estimate: complete, estimateDelayMs: 350 });

  // A submit whose answer was lost (the server went away mid-submit) may still have been recorded,
  // and billed: the server's list is read again until it answers, so the entry shows up here, as
  // `submitting` and then as its generation, without a reload.
  const lost = generate.error !== undefined && (generate.error.status === 0 || generate.error.status >= 500);
  // The submit this page is sending (a card while it waits in the app's gate), and what Stop did to it.
  const [sending, setSending] = useState<{ model: string; prompt: string | null } | null>(null);
  const [stop, setStop] = useState<{ model: string; prompt: string | null; result: StopResult } | null>(null);
  // A stop that found the submit already sent (or could not tell): the generation goes on and is
  // billed, so it must show up in the list, as a lost answer's does.
  const relistAfterStop = stop !== null && stop.result.outcome !== 'stopped';
  useEffect(() => {
    if (!lost && !relistAfterStop) return;
    let live = true;
    const relist = async (tries: number) => {
      const listed = await listGenerations().catch(() => undefined);
      if (!live) return;
      const entries = listed?.data?.generations as unknown as StudioGeneration[] | undefined;
      if (entries) setGenerations((list) => [...entries.filter((e) => !list.some((g) => sameEntry(g, e))), ...list]);
      else if (tries > 1) setTimeout(() => void relist(tries - 1), 2_000);
    };
    void relist(30);
    return () => {
      live = false;
    };
  }, [lost, relistAfterStop]);

  const onSettled = useCallback(
    (settled: StudioGeneration) => {
      setGenerations((list) => list.map((g) => (sameEntry(g, settled) ? settled : g)));
      void refreshBalance();
    },
    [refreshBalance],
  );

  const pick = (next: string) => {
    const entry = usable.find((m) => m.slug === next);
    if (!entry) return;
    setSlug(next);
    setValues(initialValues(entry));
    setTouched(false);
    generate.reset();
  };

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (!model || !params || issues.length > 0 || missing) return;
    // A double click while this is in flight gets the same promise (one key, one charge).
    setStop(null);
    setSending({ model: model.slug, prompt: typeof params.prompt === 'string' ? params.prompt : null });
    const submitted = await generate.submit(params);
    setSending(null);
    if (!submitted) {
      void refreshBalance(); // a refusal over the user's budget says what is left
      return; // `generate.error` says why.
    }
    setGenerations((list) => [cardOf(submitted, params.prompt), ...list.filter((g) => g.generation_id !== submitted.generation_id)]);
    void refreshBalance();
  }

  // Stop on the last accepted generation's card: it only stops following (the service has it).
  const [followStop, setFollowStop] = useState<{ id: string; result: StopResult } | null>(null);
  const accepted = generate.generation?.generation_id;
  const stoppable = accepted
    ? {
        id: accepted,
        stopping: generate.isStopping,
        result: followStop?.id === accepted ? followStop.result : undefined,
        onStop: async () => {
          const result = await generate.stop();
          if (result) setFollowStop({ id: accepted, result });
        },
      }
    : undefined;

  const queueCard = Boolean((sending && generate.queue) || stop);

  async function onStop() {
    const stopping = sending;
    const result = await generate.stop();
    if (stopping && result) setStop({ ...stopping, result });
    void refreshBalance();
  }

  const exact = generate.estimate?.credits_estimate;
  const uploadPercent = generate.uploadProgress?.total
    ? Math.floor((generate.uploadProgress.loaded / generate.uploadProgress.total) * 100)
    : null;
  const note = missing
    ? missing
    : exact !== undefined
      ? `confirmed by estimate${quote?.enhanceCredits ? ` (incl. ${quote.enhanceCredits} for enhance)` : ''}`
      : generate.estimateError
        ? priceProblem(generate.estimateError, model)
        : generate.isUploading
          ? `uploading your file${uploadPercent !== null ? ` · ${uploadPercent}%` : ''}…`
          : generate.isEstimating
            ? quote?.exact === false
              ? 'from price · checking…'
              : 'checking…'
            : 'from the model list';
  return (
    <div className="shell">
      <header className="topbar">
        <div className="brand">
          <span className="logo" aria-hidden="true" />
          <span>
            MediaGen <strong>Studio</strong>
          </span>
        </div>
        <div className="wallets">
          <BudgetChip budget={budget} />
          <div className="balance" id="balance" aria-live="polite" title="The account's balance, shared by every user of this app">
            {balance === null ? '—' : balance.toLocaleString('en-US')} <span>credits</span>
          </div>
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
                uploadProgress={generate.uploadProgress}
                uploadProblem={fileProblem(generate.error) ?? fileProblem(generate.estimateError)}
              />
              <div className="pricebar">
                <div>
                  <div className="price" id="price" data-exact={exact !== undefined ? 'true' : 'false'}>
                    {missing ? '—' : exact !== undefined ? exact + (quote?.enhanceCredits ?? 0) : (quote?.total ?? '—')}
                    <span> credits</span>
                  </div>
                  <div className="muted small" id="price-note">
                    {note}
                  </div>
                </div>
                <button id="submit" type="submit" className="primary" disabled={generate.isSubmitting}>
                  {generate.isSubmitting
                    ? generate.isUploading
                      ? `Uploading${uploadPercent !== null ? ` ${uploadPercent}%` : ''}…`
                      : 'Submitting…'
                    : 'Generate'}
                </button>
              </div>
              <p id="error" role="alert" className="error">
                {generate.error ? describe(generate.error) : ''}
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
          {/* A submit waiting in the app's gate (its place in line, Stop), or what Stop did to it. */}
          {queueCard ? (
            <ul className="cards queue-cards">
              <QueueCard
                model={(stop ?? sending)!.model}
                prompt={(stop ?? sending)!.prompt}
                queue={stop ? undefined : generate.queue}
                stopped={stop?.result}
                stopping={generate.isStopping}
                onStop={() => void onStop()}
              />
            </ul>
          ) : null}
          {/* The gallery's "nothing yet" would contradict the card above it. */}
          {queueCard && generations.length === 0 ? null : (
            <Gallery
              generations={generations}
              kinds={kinds}
              onSettled={onSettled}
              stream={stream}
              stoppable={sending ? undefined : stoppable}
            />
          )}
        </section>
      </main>
    </div>
  );
}

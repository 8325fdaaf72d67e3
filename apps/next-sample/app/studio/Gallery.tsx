'use client';

import { CONTENT_POLICY_VIOLATION } from '@mediagen/core/wire';
import { type StopResult, useGeneration } from '@mediagen/next/client';
import { useEffect, useMemo, useState } from 'react';
import { cardId, promptOf, type StudioGeneration } from '../../lib/generation';
import { EtaLine } from './EtaLine';
import { stopWords } from './QueueCard';
import { useHydrated } from './useHydrated';

interface GalleryProps {
  generations: StudioGeneration[];
  kinds: Record<string, string>;
  onSettled(generation: StudioGeneration): void;
  /** false: poll the status route instead of following the event stream. Default true. */
  stream?: boolean;
  /** The page's last accepted submit, which Stop can stop following (it goes on and is billed), and what Stop did. */
  stoppable?: Stoppable | undefined;
}

interface Stoppable {
  id: string;
  stopping: boolean;
  result: StopResult | undefined;
  onStop(): void;
}

export function Gallery({ generations, kinds, onSettled, stream = true, stoppable }: GalleryProps) {
  if (generations.length === 0) {
    return <p className="empty muted">Nothing yet. Pick a model, describe what you want, and press Generate.</p>;
  }
  return (
    <ul className="cards" id="list" aria-live="polite">
      {generations.map((g) => (
        <Card
          key={g.idempotency_key ?? cardId(g)}
          stored={g}
          kind={kinds[g.model]}
          onSettled={onSettled}
          stream={stream}
          stoppable={stoppable?.id === cardId(g) ? stoppable : undefined}
        />
      ))}
    </ul>
  );
}

/** One generation, live: the handler's event stream (the webhook's news within milliseconds), polling only when it cannot serve. */
function Card({
  stored,
  kind,
  onSettled,
  stream,
  stoppable,
}: {
  stored: StudioGeneration;
  kind: string | undefined;
  onSettled(g: StudioGeneration): void;
  stream: boolean;
  stoppable: Stoppable | undefined;
}) {
  // An intent is followed by its key: its routes answer the intent until the same key reads the generation.
  const live = useGeneration(cardId(stored), { kind, initial: stored as never, stream });
  // One object per change of its inputs (the list's record, the hook's last answer; both keep
  // their identity across renders), not per render: the effect below depends on it.
  const polled = live.generation as Partial<StudioGeneration> | undefined;
  // `submitting` is the ledger's: a state read from the service (which has no such field) ends it.
  const g = useMemo(
    () => ({ ...stored, ...polled, submitting: (polled ?? stored).submitting === true }) as StudioGeneration,
    [stored, polled],
  );
  const terminal = g.status === 'completed' || g.status === 'failed';
  // The time is the browser's own (its time zone), once hydrated; the server's render shows UTC.
  const hydrated = useHydrated();

  // Tells the list once when this card settles, not again on every later render.
  useEffect(() => {
    if (terminal && stored.status !== g.status) onSettled(g);
  }, [terminal, stored.status, g, onSettled]);

  const forfeited = g.error?.code === CONTENT_POLICY_VIOLATION;
  // A failure says "refunded" only when the service says nothing was kept (credits_used 0).
  const kept = g.credits_used ?? 0;
  const prompt = promptOf(g);
  const status = g.submitting ? 'submitting' : g.status;
  return (
    <li className="card" data-id={cardId(g)} data-status={status} data-available={g.available === false ? 'false' : 'true'}>
      <div className="card-media">
        <Media generation={g} kind={kind} />
      </div>
      <div className="card-body">
        <div className="card-head">
          <span className={`status ${status}`}>{status}</span>
          <strong className="card-model">{g.model}</strong>
        </div>
        {prompt ? <p className="prompt">{prompt}</p> : null}
        {terminal || g.submitting ? null : <EtaLine eta={live.eta} />}
        {g.submitting ? (
          <p className="muted small" data-submitting="">
            Being submitted. The service may already have billed it: it is sent again with the same key, which is never billed twice.
          </p>
        ) : null}
        {stoppable?.result ? (
          <p className="small" data-stop-outcome={stoppable.result.outcome} data-charged={String(stoppable.result.charged)}>
            {stopWords(stoppable.result)}
          </p>
        ) : stoppable && !terminal && !g.submitting ? (
          <button type="button" className="ghost" data-stop="" onClick={stoppable.onStop} disabled={stoppable.stopping}>
            {stoppable.stopping ? 'Stopping…' : 'Stop'}
          </button>
        ) : null}
        {g.status === 'failed' ? (
          <p className="failure">
            <strong>{g.error?.code ?? 'failed'}</strong> {g.error?.message}
            <span className="credits-note" data-refund={forfeited ? 'forfeited' : kept > 0 ? 'charged' : 'refunded'}>
              {forfeited ? `${kept} credits forfeited (content policy)` : kept > 0 ? `${kept} credits charged` : 'credits refunded'}
            </span>
          </p>
        ) : null}
        <p className="meta muted small">
          {/* No charge is shown for an intent the service has not answered: it states none yet. */}
          {[
            g.credits_used === null || g.submitting ? null : terminal ? `${g.credits_used} credits` : `${g.credits_used} credits reserved`,
            new Date(g.created_at).toLocaleTimeString('en-GB', hydrated ? {} : { timeZone: 'UTC', timeZoneName: 'short' }),
          ]
            .filter(Boolean)
            .join(' · ')}
        </p>
      </div>
    </li>
  );
}

function Media({ generation: g, kind }: { generation: StudioGeneration; kind: string | undefined }) {
  if (g.status === 'failed') return <div className="placeholder failed" aria-hidden="true" />;
  if (g.status !== 'completed') return <div className="placeholder shimmer" role="status" aria-label={g.status} />;
  // The service forgot it (its records were reset): its links are gone, and no broken image is shown.
  if (g.available === false) {
    return (
      <div className="placeholder unavailable" role="img" aria-label="No longer available">
        <span className="muted small">No longer available</span>
      </div>
    );
  }
  const urls = g.output_urls ?? (g.output_url ? [g.output_url] : []);
  if (kind === 'text') return <TextResult id={cardId(g)} />;
  return (
    <div className={`outputs n${Math.min(urls.length, 4)}`}>
      {urls.map((url, index) => {
        const file = new URL(url).pathname.toLowerCase();
        const label = `${g.model} result ${index + 1}${promptOf(g) ? `: ${promptOf(g)}` : ''}`;
        if (/\.(mp4|webm|mov)$/.test(file)) return <video key={url} src={url} controls loop muted playsInline aria-label={label} />;
        // biome-ignore lint/a11y/useMediaCaption: generated audio comes with no captions; the prompt is its label
        if (/\.(wav|mp3|ogg|m4a|flac)$/.test(file) || kind === 'audio') return <audio key={url} src={url} controls aria-label={label} />;
        return (
          <a key={url} href={url} target="_blank" rel="noreferrer">
            {/* biome-ignore lint/performance/noImgElement: signed links on the service's origin; next/image would proxy them */}
            <img src={url} alt={label} loading="lazy" />
          </a>
        );
      })}
    </div>
  );
}

function TextResult({ id }: { id: string }) {
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    fetch(`/api/generations/${encodeURIComponent(id)}/text`)
      .then((res) => (res.ok ? res.text() : Promise.reject(new Error(String(res.status)))))
      .then((value) => live && setText(value))
      .catch(() => live && setText('(the text could not be loaded)'));
    return () => {
      live = false;
    };
  }, [id]);
  return <blockquote className="text-output">{text ?? '…'}</blockquote>;
}

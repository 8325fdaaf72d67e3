'use client';
import type { StopResult, SubmitQueue } from '@mediagen/next/client';
import { useEffect, useState } from 'react';
import { useHydrated } from './useHydrated';

/** What holds the line, in words: the account's limits are the app's, shared by all its users. */
const HELD_BY: Record<string, string> = {
  max_concurrent: 'every generation slot of the account is busy; one frees when a running generation ends',
  per_minute: 'the account has sent as many submits as it may this minute',
  retry_after: 'the service asked the app to wait before sending more',
};

/** A stop's outcome in words: what was charged is said only as the app's handler said it. */
export function stopWords(stopped: StopResult): string {
  if (stopped.outcome === 'stopped' && stopped.charged === false) return 'Stopped before it was sent: nothing was charged.';
  if (stopped.outcome === 'abandoned')
    return 'The service already had it: it goes on and is billed. This page stopped following it; its result is kept in your list.';
  if (stopped.outcome === 'finished') return 'It had already finished, and was billed as it ended.';
  return 'Stopped, but the app could not say whether it had been sent: it may have been billed. Your list shows it if it was.';
}

/**
 * The submit the studio is sending, as a card at the top of the gallery: while it waits for a slot
 * in the app's gate, its place in line, what holds it and (when known) the earliest it can go,
 * with Stop; once stopped, what the stop did. Shown only after a submit in this page (never in
 * the server's HTML), and its countdown waits for hydration all the same.
 */
export function QueueCard({
  model,
  prompt,
  queue,
  stopped,
  stopping,
  onStop,
}: {
  model: string;
  prompt: string | null;
  queue: SubmitQueue | undefined;
  stopped: StopResult | undefined;
  stopping: boolean;
  onStop(): void;
}) {
  const hydrated = useHydrated();
  const [now, setNow] = useState(() => Date.now());
  const earliest = queue?.earliestAt;
  useEffect(() => {
    setNow(Date.now());
    if (earliest === undefined) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [earliest]);
  const status = stopped ? (stopped.outcome === 'stopped' ? 'stopped' : 'left') : queue ? 'queued' : 'submitting';
  const seconds = earliest !== undefined && hydrated ? Math.max(0, Math.ceil((earliest - now) / 1000)) : undefined;
  return (
    <li className="card queue-card" data-status={status} data-position={queue?.position} aria-live="polite">
      <div className="card-media">
        <div className={`placeholder ${stopped ? 'stopped' : 'queued'}`} aria-hidden="true">
          {queue && !stopped ? <span className="queue-number">#{queue.position}</span> : null}
        </div>
      </div>
      <div className="card-body">
        <div className="card-head">
          <span className={`status ${status}`}>{status}</span>
          <strong className="card-model">{model}</strong>
        </div>
        {prompt ? <p className="prompt">{prompt}</p> : null}
        {stopped ? (
          <p className="small" data-stop-outcome={stopped.outcome} data-charged={String(stopped.charged)}>
            {stopWords(stopped)}
          </p>
        ) : queue ? (
          <p className="small" data-queue="">
            <strong>{queue.position === 1 ? 'Next in line' : `Number ${queue.position} in line`}</strong>
            {queue.limit ? `: ${HELD_BY[queue.limit] ?? queue.limit}.` : '.'}
            {seconds !== undefined ? ` It can go in ${seconds} s at the earliest.` : ''}{' '}
            <span className="muted">Not sent yet, so nothing is charged; Stop now and it never will be.</span>
          </p>
        ) : (
          <p className="muted small">Sending…</p>
        )}
        {stopped ? null : (
          <button type="button" className="ghost" id="stop" onClick={onStop} disabled={stopping}>
            {stopping ? 'Stopping…' : 'Stop'}
          </button>
        )}
      </div>
    </li>
  );
}

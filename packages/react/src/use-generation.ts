import type { Generation, GenerationStatus } from '@mediagen/core';
import type { GenerationEta } from '@mediagen/core/ledger';
import { pollIntervalMs } from '@mediagen/core/wire';
import { useEffect, useRef, useState } from 'react';
import type { GenerationRequestError } from './errors';
import { followGeneration, type Transport } from './follow';
import { routeUrl } from './routes';

export interface UseGenerationOptions {
  /** Where the app mounts `createMediaGenHandler`. Default `/api`: the stream is `/api/generations/:id/events`, the status read `/api/generations/:id`. */
  basePath?: string;
  /**
   * Follow by the handler's event stream (default true); polling only when it cannot open or
   * stalls. `false`: poll only (a status route without a stream).
   */
  stream?: boolean;
  /** A status route of the app's own: a path the id is appended to, or a function of the id. Implies `stream: false` unless `stream` is set. */
  url?: string | ((id: string) => string);
  /** The model's kind (`image`, `video`, …), which sets the contract's polling interval. */
  kind?: string;
  /** Between status reads when polling. Default: 4 s for video, else 2 s (the contract's). */
  intervalMs?: number;
  /** No event nor heartbeat on the stream this long: it stalled, polling takes over. Default 45 000 ms (the server pings every 15 s). */
  stallMs?: number;
  /** What the page already knows (e.g. from its list). A terminal one is shown and never followed. */
  initial?: Generation;
  /** `false` pauses following. Default true. */
  enabled?: boolean;
  /** Each new state, as it arrives. */
  onUpdate?(generation: Generation): void;
  /** Once, when the generation reaches a terminal state (completed or failed). */
  onFinish?(generation: Generation): void;
  /** Once per failure: the generation's own (`status: failed`), or a refusal of the routes (404 for an id that is not this user's). */
  onError?(error: NonNullable<Generation['error']> | GenerationRequestError): void;
  /** For tests and other runtimes. */
  fetch?: typeof fetch;
}

export interface GenerationState {
  generation: Generation | undefined;
  status: GenerationStatus | undefined;
  /** The output links (`output_urls`, else `output_url`), empty until completed. */
  outputs: string[];
  /** The generation's own failure (`status: failed`), or the route's refusal (a 4xx) that stopped following. */
  error: Generation['error'] | GenerationRequestError | undefined;
  isTerminal: boolean;
  /**
   * While it runs, when the server estimates it (the ledger's `eta`, from the app's own past
   * renders, else the contract's typical range): the time left at p50 and p90, as of `as_of`.
   * An estimate, labelled so (`estimate: true`, `basis`); undefined once terminal or unknown.
   */
  eta: GenerationEta | undefined;
  /** How updates come now: `stream`, `poll` (fallback), or undefined (not following). */
  transport: Transport | undefined;
}

/** The contract's recommended status polling interval: 2 s for image, 4 s for video. */
export const pollIntervalFor: (kind: string | undefined) => number = pollIntervalMs;

const isTerminal = (generation: Generation | undefined) => generation?.status === 'completed' || generation?.status === 'failed';

/**
 * Follows one generation live: the handler's event stream (`GET /generations/:id/events`),
 * which the server feeds from the webhook, so the page learns of a completion within
 * milliseconds; polling only while the stream cannot serve. Stops at a terminal state and on
 * unmount.
 */
export function useGeneration(id: string | null | undefined, options: UseGenerationOptions = {}): GenerationState {
  const { initial, enabled = true, basePath = '/api' } = options;
  const [followed, setFollowed] = useState<{ id: string; generation: Generation } | undefined>();
  const [failure, setFailure] = useState<{ id: string; error: GenerationRequestError } | undefined>();
  const [transport, setTransport] = useState<{ id: string; transport: Transport } | undefined>();
  const callbacks = useRef(options);
  callbacks.current = options;

  const statusUrl = !id
    ? undefined
    : typeof options.url === 'function'
      ? options.url(id)
      : options.url !== undefined
        ? `${options.url}/${encodeURIComponent(id)}`
        : routeUrl(basePath, 'generation', id);
  const streamUrl = id && (options.stream ?? options.url === undefined) ? routeUrl(basePath, 'events', id) : undefined;
  const interval = options.intervalMs ?? pollIntervalFor(options.kind);
  const stallMs = options.stallMs ?? 45_000;
  const initialDone = isTerminal(initial);
  const knownAlready = initial !== undefined;

  useEffect(() => {
    if (!id || !statusUrl || !enabled || initialDone) return;
    let finished = false;
    const stop = followGeneration(
      { streamUrl, statusUrl, intervalMs: interval, stallMs, maxReconnects: 3, waitFirst: knownAlready, fetch: callbacks.current.fetch },
      {
        update(generation) {
          if (finished) return;
          setFollowed({ id, generation });
          callbacks.current.onUpdate?.(generation);
          if (!isTerminal(generation)) return;
          finished = true;
          if (generation.error) callbacks.current.onError?.(generation.error);
          callbacks.current.onFinish?.(generation);
        },
        refused(error) {
          setFailure({ id, error });
          callbacks.current.onError?.(error);
        },
        transport: (t) => setTransport({ id, transport: t }),
      },
    );
    return stop;
  }, [id, statusUrl, streamUrl, interval, stallMs, enabled, initialDone, knownAlready]);

  const fresh = followed && followed.id === id ? followed.generation : undefined;
  const generation = initialDone ? initial : (fresh ?? initial);
  const requestError = failure && failure.id === id ? failure.error : undefined;
  const done = isTerminal(generation);
  return {
    generation,
    status: generation?.status,
    outputs: generation?.output_urls ?? (generation?.output_url ? [generation.output_url] : []),
    error: generation?.error ?? requestError,
    isTerminal: done,
    eta: done ? undefined : etaOf(generation),
    transport: done || requestError || !transport || transport.id !== id ? undefined : transport.transport,
  };
}

/** The `eta` field of a stream event or status read, if it is an estimate (the server's; anything else is ignored). */
function etaOf(generation: Generation | undefined): GenerationEta | undefined {
  const eta = generation?.eta as GenerationEta | undefined;
  return eta && typeof eta === 'object' && eta.estimate === true && typeof eta.remaining_p50_ms === 'number' ? eta : undefined;
}

import type { Generation, GenerationStatus } from '@mediagen/core';
import { pollIntervalMs } from '@mediagen/core/wire';
import { useEffect, useState } from 'react';

export interface UseGenerationOptions {
  /** The status route: a path the id is appended to, or a function of the id. Default `/api/generations`, i.e. `/api/generations/<id>`. */
  url?: string | ((id: string) => string);
  /** The model's kind (`image`, `video`, …), which sets the contract's polling interval. */
  kind?: string;
  /** Between the end of one request and the start of the next. Default: 4 s for video, else 2 s (the contract's). */
  intervalMs?: number;
  /** What the page already knows (e.g. from its list). A terminal one is shown and never polled. */
  initial?: Generation;
  /** `false` pauses polling. Default true. */
  enabled?: boolean;
}

/** The status route's answer when it was not a Generation. */
export interface GenerationRequestError {
  code: string;
  message: string;
  next: string | null;
  status: number;
}

export interface GenerationState {
  generation: Generation | undefined;
  status: GenerationStatus | undefined;
  /** The output links (`output_urls`, else `output_url`), empty until completed. */
  outputs: string[];
  /** The generation's own failure (`status: failed`), or the route's refusal (a 4xx) that stopped polling. */
  error: Generation['error'] | GenerationRequestError | undefined;
  isTerminal: boolean;
}

/** The contract's recommended status polling interval: 2 s for image, 4 s for video. */
export const pollIntervalFor: (kind: string | undefined) => number = pollIntervalMs;

const isTerminal = (generation: Generation | undefined) => generation?.status === 'completed' || generation?.status === 'failed';

/**
 * Follows one generation by polling the app's status route (`createStatusHandler`), one
 * request at a time at the contract's interval, until it is completed or failed, and stops on
 * unmount. A route handler rather than a server action: Next runs actions one at a time, so a
 * polling action would hold the user's next submit in the queue.
 */
export function useGeneration(id: string | null | undefined, options: UseGenerationOptions = {}): GenerationState {
  const { initial, enabled = true } = options;
  const [polled, setPolled] = useState<{ id: string; generation: Generation } | undefined>();
  const [failure, setFailure] = useState<{ id: string; error: GenerationRequestError } | undefined>();
  const url = !id
    ? undefined
    : typeof options.url === 'function'
      ? options.url(id)
      : `${options.url ?? '/api/generations'}/${encodeURIComponent(id)}`;
  const interval = options.intervalMs ?? pollIntervalFor(options.kind);
  const initialDone = isTerminal(initial);
  const knownAlready = initial !== undefined;

  useEffect(() => {
    if (!id || !url || !enabled || initialDone) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const schedule = () => (timer = setTimeout(tick, interval));
    async function tick() {
      try {
        const response = await fetch(url!, { signal: controller.signal, cache: 'no-store', headers: { accept: 'application/json' } });
        const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
        if (controller.signal.aborted) return;
        if (response.ok && body && typeof body.status === 'string') {
          const generation = body as unknown as Generation;
          setPolled({ id: id!, generation });
          if (!isTerminal(generation)) schedule();
          return;
        }
        // A refusal (404, 403, …) will not change by asking again; 408, 429 and 5xx might.
        if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
          setFailure({
            id: id!,
            error: {
              code: typeof body?.error === 'string' ? body.error : `HTTP_${response.status}`,
              message: typeof body?.message === 'string' ? body.message : response.statusText,
              next: typeof body?.next === 'string' ? body.next : null,
              status: response.status,
            },
          });
          return;
        }
        schedule();
      } catch {
        // Aborted (unmount), or the network blinked: the next tick tries again.
        if (!controller.signal.aborted) schedule();
      }
    }
    // Straight after a submit the job is certainly not done: a page that knows it waits one interval.
    if (knownAlready) schedule();
    else void tick();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [id, url, interval, enabled, initialDone, knownAlready]);

  const fresh = polled && polled.id === id ? polled.generation : undefined;
  const generation = initialDone ? initial : (fresh ?? initial);
  const requestError = failure && failure.id === id ? failure.error : undefined;
  return {
    generation,
    status: generation?.status,
    outputs: generation?.output_urls ?? (generation?.output_url ? [generation.output_url] : []),
    error: generation?.error ?? requestError,
    isTerminal: isTerminal(generation),
  };
}

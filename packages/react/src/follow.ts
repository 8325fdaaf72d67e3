import type { Generation } from '@mediagen/core';
import { type GenerationRequestError, requestErrorOf } from './errors';
import { readJson } from './read-json';
import { createSseParser } from './sse';

export type Transport = 'stream' | 'poll';

export interface FollowOptions {
  /** The stream route (`…/generations/:id/events`); absent: poll only. */
  streamUrl?: string | undefined;
  /** The status route (`…/generations/:id`), polled when the stream cannot serve. */
  statusUrl: string;
  /** Between the end of one status read and the start of the next. */
  intervalMs: number;
  /** No byte (event or heartbeat) on the stream for this long: it stalled; poll instead. */
  stallMs: number;
  /** Cuts in a row the stream is reopened after (with `Last-Event-ID`) before polling instead. */
  maxReconnects: number;
  /** The page already has a state: the first status read waits one interval. */
  waitFirst: boolean;
  fetch?: typeof fetch | undefined;
}

export interface FollowCallbacks {
  update(generation: Generation): void;
  /** A refusal that asking again will not change (404 for another user's id): following stops. */
  refused(error: GenerationRequestError): void;
  /** Which way updates come now. */
  transport?(transport: Transport): void;
}

type StreamOutcome = 'terminal' | 'refused' | 'aborted' | 'unavailable' | 'stalled' | 'cut';

const isTerminal = (generation: Generation | undefined) => generation?.status === 'completed' || generation?.status === 'failed';
const isGeneration = (value: unknown): value is Generation =>
  typeof value === 'object' && value !== null && typeof (value as { status?: unknown }).status === 'string';

/**
 * Follows one generation to a terminal state: by the handler's event stream while it serves
 * (never a status read meanwhile), reopened with `Last-Event-ID` after a cut (the server sends
 * what changed while away, a terminal state included); by polling the status route, one read
 * at a time, when the stream cannot open, stalls past `stallMs`, or is cut `maxReconnects`
 * times in a row. Returns the stop.
 */
export function followGeneration(options: FollowOptions, callbacks: FollowCallbacks): () => void {
  const stop = new AbortController();
  const request = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      stop.signal.addEventListener('abort', () => resolve(), { once: true });
    });

  async function streamOnce(
    lastEventId: string | undefined,
    seen: (id: string | undefined, retryMs?: number) => void,
  ): Promise<StreamOutcome> {
    const attempt = new AbortController();
    const onStop = () => attempt.abort();
    stop.signal.addEventListener('abort', onStop, { once: true });
    let stalled = false;
    let stall: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(stall);
      stall = setTimeout(() => {
        stalled = true;
        attempt.abort();
      }, options.stallMs);
    };
    let opened = false;
    let parser: ReturnType<typeof createSseParser> | undefined;
    try {
      arm();
      const response = await request(options.streamUrl!, {
        headers: { accept: 'text/event-stream', ...(lastEventId !== undefined && { 'last-event-id': lastEventId }) },
        signal: attempt.signal,
        cache: 'no-store',
        credentials: 'same-origin',
      });
      if (!response.ok) {
        const error = requestErrorOf(response.status, response.statusText, await readJson(response));
        if (!error.retryable) {
          callbacks.refused(error);
          return 'refused';
        }
        return 'unavailable';
      }
      if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
        await response.body?.cancel().catch(() => {});
        return 'unavailable';
      }
      opened = true;
      callbacks.transport?.('stream');
      let terminal = false;
      parser = createSseParser(
        (message) => {
          if (message.event !== 'message') return; // `error`: the server's follow failed; a reconnect asks again.
          let value: unknown;
          try {
            value = JSON.parse(message.data);
          } catch {
            return;
          }
          if (!isGeneration(value)) return;
          seen(message.id);
          callbacks.update(value);
          terminal ||= isTerminal(value);
        },
        (ms) => seen(undefined, ms),
      );
      const reader = response.body.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        arm();
        parser.feed(value);
        if (terminal) {
          reader.cancel().catch(() => {});
          return 'terminal';
        }
      }
      return 'cut';
    } catch {
      if (stop.signal.aborted) return 'aborted';
      if (stalled) return 'stalled';
      // An event past the parser's bound is not the handler's stream: reopening gets the same.
      if (parser?.overflowed) return 'unavailable';
      return opened ? 'cut' : 'unavailable';
    } finally {
      clearTimeout(stall);
      stop.signal.removeEventListener('abort', onStop);
      attempt.abort();
    }
  }

  async function stream(): Promise<'done' | 'poll'> {
    let lastEventId: string | undefined;
    let retryMs = 2_000;
    let cuts = 0;
    for (;;) {
      const outcome = await streamOnce(lastEventId, (id, retry) => {
        if (retry !== undefined) retryMs = Math.min(retry, 30_000);
        if (id !== undefined) {
          lastEventId = id;
          cuts = 0;
        }
      });
      if (outcome === 'terminal' || outcome === 'refused' || outcome === 'aborted') return 'done';
      if (outcome === 'unavailable' || outcome === 'stalled') return 'poll';
      cuts += 1;
      if (cuts > options.maxReconnects) return 'poll';
      await sleep(retryMs);
      if (stop.signal.aborted) return 'done';
    }
  }

  async function poll(): Promise<void> {
    callbacks.transport?.('poll');
    if (options.waitFirst) await sleep(options.intervalMs);
    while (!stop.signal.aborted) {
      try {
        const response = await request(options.statusUrl, {
          signal: stop.signal,
          cache: 'no-store',
          headers: { accept: 'application/json' },
        });
        const body = await readJson(response);
        if (stop.signal.aborted) return;
        if (response.ok && isGeneration(body)) {
          callbacks.update(body);
          if (isTerminal(body)) return;
        } else if (!response.ok) {
          const error = requestErrorOf(response.status, response.statusText, body);
          if (!error.retryable) return callbacks.refused(error);
        }
      } catch {
        // Aborted (unmount), or the network blinked: the next read tries again.
        if (stop.signal.aborted) return;
      }
      await sleep(options.intervalMs);
    }
  }

  void (async () => {
    if (options.streamUrl && (await stream()) === 'done') return;
    if (!stop.signal.aborted) await poll();
  })();
  return () => {
    stop.abort();
    clearTimeout(timer);
  };
}

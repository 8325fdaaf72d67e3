import type { MediaGenClient } from '../client';
import type { Generation } from '../types';
import { errorReply } from './error-reply';

/**
 * `GET /generations/:id/events`: server-sent events, one `data:` line (the generation as JSON)
 * per status change, from the first read to a terminal state; then the stream ends. The
 * updates come from `client.generations.wait`, so a webhook this app receives ends it at once.
 * A reader that goes away stops the polling.
 */
export function eventStream(client: MediaGenClient, first: Generation, signal: AbortSignal | undefined): Response {
  const encoder = new TextEncoder();
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let last = first.status;
      const send = (text: string) => {
        if (!stop.signal.aborted) controller.enqueue(encoder.encode(text));
      };
      const sendGeneration = (generation: Generation) => send(`data: ${JSON.stringify(generation)}\n\n`);
      const end = () => {
        signal?.removeEventListener('abort', onAbort);
        if (!stop.signal.aborted) controller.close();
      };
      sendGeneration(first);
      // Terminal already (spec: States): one event is the whole story. (Not `isTerminal`: sharing
      // that module with the client entry reorders the client bundle past its size budget.)
      if (first.status === 'completed' || first.status === 'failed') return end();
      const onUpdate = (generation: Generation) => {
        if (generation.status === last) return;
        last = generation.status;
        sendGeneration(generation);
      };
      client.generations.wait(first.generation_id, { signal: stop.signal, onUpdate }).then(
        (generation) => {
          onUpdate(generation);
          end();
        },
        (error: unknown) => {
          // The read failed (the service down, the wait's own deadline): say so, then end.
          send(`event: error\ndata: ${JSON.stringify(errorReply(error).body)}\n\n`);
          end();
        },
      );
    },
    cancel() {
      stop.abort();
      signal?.removeEventListener('abort', onAbort);
    },
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' },
  });
}

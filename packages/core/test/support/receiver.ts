import { type GenerationEvents, signWebhook, type WebhookEvent } from '../../src/index';
import { createWebhookHandler } from '../../src/server';
import { startScriptedServer } from './scripted-server';

export const RECEIVER_SECRET = 'whsec_receiver_test';

/**
 * A real webhook receiver on a free port: the core handler verifies each delivery and
 * publishes the event to `events`, or to the events of the `client` it is given (installing
 * in-process ones on a client with none, as an app's receiver does).
 */
export async function startReceiver(
  target: { events: { publish(event: WebhookEvent): unknown } } | { client: { events?: GenerationEvents | undefined } },
) {
  // The receiver publishes each verified event itself (its `events` or `client` option).
  const handle = createWebhookHandler({ secrets: RECEIVER_SECRET, onEvent: () => {}, ...(target as object), dedupe: false });
  const server = await startScriptedServer(async (req, res) => {
    const response = await handle(
      new Request(`http://receiver${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: req.body,
      }),
    );
    res.writeHead(response.status, { 'content-type': 'application/json' });
    res.end(await response.text());
  });
  return {
    ...server,
    /** Delivers a signed event, as the service does. */
    deliver: async (type: string, data: Record<string, unknown>) => {
      const body = JSON.stringify(data);
      const response = await fetch(`${server.url}/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-signature': await signWebhook(body, RECEIVER_SECRET),
          'x-service-event': type,
          'x-service-delivery-id': crypto.randomUUID(),
        },
        body,
      });
      return response.status;
    },
  };
}

/** A webhook payload for a terminal generation. */
export function terminalPayload(id: string, status: 'completed' | 'failed' = 'completed'): Record<string, unknown> {
  const url = `https://cdn.example/api/v1/output/${id}/9999999999/sig/0/out-0.png`;
  return {
    generation_id: id,
    status,
    model: 'image-fast',
    output_url: status === 'completed' ? url : null,
    output_urls: status === 'completed' ? [url] : null,
    credits_charged: status === 'completed' ? 4 : 0,
    duration_ms: 1_500,
    completed_at: '2026-01-01T00:00:01.500Z',
    ...(status === 'failed' ? { error_code: 'model_unavailable', error_message: 'try later', retryable: true } : {}),
  };
}

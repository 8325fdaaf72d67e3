import { signWebhook } from '../../src/webhooks/verify';

/**
 * The service's `generation.completed` delivery for `id`, signed with `secret` (or unsigned when
 * `secret` is undefined), as `RequestInit` for a POST to a webhook receiver.
 */
export async function completedDelivery(id: string, secret: string | undefined): Promise<RequestInit & { body: string }> {
  const body = JSON.stringify({
    generation_id: id,
    status: 'completed',
    model: 'image-fast',
    output_url: `https://media.example/${id}.png`,
    output_urls: [`https://media.example/${id}.png`],
    credits_charged: 4,
    duration_ms: 1200,
    completed_at: new Date().toISOString(),
  });
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-event': 'generation.completed',
      'x-service-delivery-id': crypto.randomUUID(),
      ...(secret !== undefined && { 'x-service-signature': await signWebhook(body, secret) }),
    },
    body,
  };
}

import type { Generation, WebhookPayload } from '../types';

/**
 * The Generation a verified terminal webhook describes, for when the status read that should
 * follow it fails. The payload lacks two of the resource's fields: `created_at` is taken as
 * `completed_at` minus `duration_ms` (the time from submit to the end), and `request_id` is
 * empty because no read answered it. Its output links are the webhook's (valid 3 days from
 * completion); `client.generations.get(id)` signs fresh ones.
 */
export function generationFromEvent(d: WebhookPayload): Generation {
  const created = new Date(Date.parse(d.completed_at) - (Number(d.duration_ms) || 0));
  const g: Generation = {
    generation_id: d.generation_id,
    status: d.status,
    model: d.model,
    output_url: d.output_url ?? null,
    output_urls: d.output_urls ?? null,
    credits_used: d.credits_charged ?? 0,
    duration_ms: d.duration_ms ?? null,
    // An invalid date (no usable completed_at) has a NaN time: then there is nothing to say.
    created_at: Number.isNaN(created.getTime()) ? '' : created.toISOString(),
    completed_at: d.completed_at ?? null,
    request_id: '',
  };
  if (d.status === 'failed') g.error = { code: d.error_code ?? 'unknown', message: d.error_message ?? '', retryable: d.retryable === true };
  return g;
}

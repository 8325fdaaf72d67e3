import { describe, expect, it } from 'vitest';
import { Gate, type GateStore, MediaGenClient, signWebhook } from '../src/index';
import { createMediaGenHandler } from '../src/server';

/**
 * Found by the fleet soak (issue 36): a terminal webhook frees the generation's slot in the
 * account gate. The streams following it end on that very event, which stops their `wait()`
 * before it reads the state and settles; with no one else reading it, the slot stayed taken
 * for the gate's in-flight TTL (15 min in Redis), and after `max_concurrent` such generations
 * every submit of every instance waited at the gate.
 */
function appWithGate() {
  const settled: string[] = [];
  const store: GateStore = {
    acquire: () => ({ token: 't' }),
    bind() {},
    release() {},
    settle(id) {
      settled.push(id);
    },
  };
  const client = new MediaGenClient({ apiKey: 'svc_live_gate_settle', baseUrl: 'http://127.0.0.1:9', gate: new Gate({ store }) });
  const handler = createMediaGenHandler({ client, basePath: '/api', webhook: { secrets: 'whsec_gate' }, onError: () => {} });
  const deliver = async (data: Record<string, unknown>) => {
    const body = JSON.stringify(data);
    return handler(
      new Request('http://app.test/api/webhooks/mediagen', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-event': `generation.${data.status}`,
          'x-service-delivery-id': crypto.randomUUID(),
          'x-service-signature': await signWebhook(body, 'whsec_gate'),
        },
        body,
      }),
    );
  };
  return { settled, deliver };
}

describe('the webhook route and the account gate', () => {
  it('settles the slot of a generation a completed or failed webhook reports, once per event', async () => {
    const app = appWithGate();
    const [done, gone] = [crypto.randomUUID(), crypto.randomUUID()];
    const completed = await app.deliver({
      generation_id: done,
      status: 'completed',
      model: 'image-fast',
      output_url: 'https://cdn.test/a.png',
      output_urls: ['https://cdn.test/a.png'],
      credits_charged: 4,
      duration_ms: 1,
      completed_at: new Date().toISOString(),
    });
    expect(completed.status).toBe(200);
    const failed = await app.deliver({
      generation_id: gone,
      status: 'failed',
      model: 'image-fast',
      output_url: null,
      output_urls: null,
      credits_charged: 0,
      duration_ms: 1,
      completed_at: new Date().toISOString(),
      error_code: 'CONTENT_POLICY_VIOLATION',
      error_message: 'The prompt was refused.',
      retryable: false,
    });
    expect(failed.status).toBe(200);
    expect(app.settled).toEqual([done, gone]);
  });
});

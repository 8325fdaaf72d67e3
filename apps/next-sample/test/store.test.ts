import { randomUUID } from 'node:crypto';
import type { Generation, WebhookEvent } from '@mediagen/core';
import { afterEach, describe, expect, it } from 'vitest';
import { GenerationStore } from '../lib/store';

const now = '2026-01-01T00:00:00.000Z';

function completedEvent(id: string, url: string): WebhookEvent {
  return {
    type: 'generation.completed',
    deliveryId: randomUUID(),
    data: {
      generation_id: id,
      status: 'completed',
      model: 'image-fast',
      output_url: url,
      output_urls: [url],
      credits_charged: 4,
      duration_ms: 900,
      completed_at: now,
    },
  } as WebhookEvent;
}

function completedPoll(id: string, url: string): Generation {
  return {
    generation_id: id,
    status: 'completed',
    model: 'image-fast',
    output_url: url,
    output_urls: [url],
    credits_used: 4,
    duration_ms: 900,
    created_at: now,
    completed_at: now,
    request_id: 'req_1',
  };
}

describe('GenerationStore', () => {
  let store: GenerationStore | undefined;
  afterEach(() => store?.close());

  // What `pnpm demo --smoke` relies on: whichever settles a generation first, the record says
  // whether the webhook arrived (`webhooks`), so the smoke never races the fallback poller.
  it('records a webhook that arrives after the poller settled the generation, without changing the result', () => {
    store = new GenerationStore(':memory:');
    const id = randomUUID();
    store.addSubmitted(
      {
        generation_id: id,
        status: 'pending',
        model: 'image-fast',
        credits_estimate: 4,
        pricing_source: 'catalog_default',
        created_at: now,
        request_id: 'r',
      },
      { model: 'image-fast', prompt: 'a lighthouse' },
    );
    expect(store.get(id)).toMatchObject({ status: 'pending', source: 'submit', webhooks: 0 });

    store.applyPoll(completedPoll(id, 'http://service.test/polled.png'));
    expect(store.get(id)).toMatchObject({ status: 'completed', source: 'poll', webhooks: 0, output_url: 'http://service.test/polled.png' });

    expect(store.applyWebhook(completedEvent(id, 'http://service.test/webhook.png'))).toBe(true);
    // Terminal records never change again; the event is still recorded once.
    expect(store.get(id)).toMatchObject({ status: 'completed', source: 'poll', webhooks: 1, output_url: 'http://service.test/polled.png' });
    expect(store.applyWebhook(completedEvent(id, 'http://service.test/webhook.png'))).toBe(false);
    expect(store.get(id)?.webhooks).toBe(1);
  });

  it('a webhook first settles the record as the webhook', () => {
    store = new GenerationStore(':memory:');
    const id = randomUUID();
    expect(store.applyWebhook(completedEvent(id, 'http://service.test/a.png'))).toBe(true);
    store.applyPoll(completedPoll(id, 'http://service.test/b.png'));
    expect(store.get(id)).toMatchObject({ status: 'completed', source: 'webhook', webhooks: 1, output_url: 'http://service.test/a.png' });
  });

  it("lists each owner's own; a submit recorded after its webhook keeps the result and gains its owner", () => {
    store = new GenerationStore(':memory:');
    const id = randomUUID();
    expect(store.applyWebhook(completedEvent(id, 'http://service.test/fast.png'))).toBe(true);
    expect(store.ownerOf(id)).toBeUndefined();
    store.addSubmitted(
      {
        generation_id: id,
        status: 'pending',
        model: 'image-fast',
        credits_estimate: 4,
        pricing_source: 'catalog_default',
        created_at: now,
        request_id: 'r',
      },
      { model: 'image-fast', prompt: 'fast' },
      'ada',
    );
    expect(store.ownerOf(id)).toBe('ada');
    expect(store.list('ada')).toMatchObject([{ generation_id: id, status: 'completed', source: 'webhook', prompt: 'fast' }]);
    expect(store.list('bob')).toEqual([]);
    expect(Object.keys(store.list('ada')[0]!)).not.toContain('owner');
  });
});

import { MediaGenError, type WebhookEvent } from '@mediagen/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisGenerationEvents } from '../src/index';
import { cleanUp, connection, uniquePrefix } from './support/redis';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await cleanUp();
});

/** Text that must never be echoed into an error another app's logs would show. */
const MARK = 'whsec_channel_leak_1234';

const GOOD = {
  type: 'generation.completed',
  deliveryId: 'good',
  data: {
    generation_id: 'g-1',
    status: 'completed',
    model: 'image-fast',
    output_url: 'https://cdn.test/o.png',
    output_urls: ['https://cdn.test/o.png'],
  },
} as unknown as WebhookEvent;

/** Anything that is not an event at all: junk text, and JSON with no event object in it. */
const junk = fc.oneof(
  fc.string().map((s) => `${MARK}${s}`),
  fc
    .jsonValue()
    .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v) || !('event' in v))
    .map((v) => JSON.stringify([MARK, v])),
  fc.jsonValue().map((v) => JSON.stringify({ origin: 'other', event: v, note: MARK })),
);

/**
 * Events that claim a terminal state for a watched id but break what every terminal webhook the
 * receiver verified has: a type that contradicts the status, no link on completed, no code on failed.
 */
const badTerminal = fc
  .record({
    type: fc.constantFrom('generation.completed', 'generation.failed', 'generation.submitted', 'x', 'unknown'),
    status: fc.constantFrom('completed', 'failed'),
    output_url: fc.option(fc.oneof(fc.webUrl(), fc.integer()), { nil: undefined }),
    error_code: fc.option(fc.oneof(fc.constantFrom('model_unavailable'), fc.boolean()), { nil: undefined }),
  })
  .filter(
    ({ type, status, output_url, error_code }) =>
      type !== `generation.${status}` ||
      (status === 'completed' && typeof output_url !== 'string') ||
      (status === 'failed' && typeof error_code !== 'string'),
  )
  .map(({ type, status, output_url, error_code }) =>
    JSON.stringify({
      origin: 'other',
      event: { type, deliveryId: MARK, data: { generation_id: 'g-1', status, note: MARK, output_url, error_code } },
    }),
  );

describe('RedisGenerationEvents: hostile messages on the shared channel', () => {
  it('each unreadable, oversized or ill-formed message is reported once as a MediaGenError naming none of its text, and none reaches a waiter (fast-check)', async () => {
    const prefix = uniquePrefix('hostile');
    const reports: unknown[] = [];
    const events = new RedisGenerationEvents({ redis: connection(), prefix, onError: (e) => reports.push(e) });
    closers.push(() => events.close());
    const heard: WebhookEvent[] = [];
    events.subscribe('g-1', (e) => heard.push(e));
    await events.ready();
    const raw = connection();
    const channel = `${prefix}generation-events`;

    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(junk, badTerminal), { minLength: 1, maxLength: 8 }), async (messages) => {
        reports.length = 0;
        heard.length = 0;
        for (const message of messages) await raw.publish(channel, message);
        // Redis delivers a channel's messages in order: once the good one is heard, all the others were read.
        await raw.publish(channel, JSON.stringify({ origin: 'other', event: GOOD }));
        await expect.poll(() => heard.length).toBeGreaterThan(0);
        expect(heard.map((e) => e.deliveryId)).toEqual(['good']);
        expect(reports).toHaveLength(messages.length);
        for (const report of reports) {
          expect(report).toBeInstanceOf(MediaGenError);
          expect(JSON.stringify({ m: (report as Error).message, c: String((report as Error).cause ?? '') })).not.toContain(MARK);
        }
      }),
      { numRuns: 40 },
    );

    reports.length = 0;
    heard.length = 0;
    await raw.publish(channel, `${MARK}${'x'.repeat(100_000)}`);
    await raw.publish(channel, JSON.stringify({ origin: 'other', event: GOOD }));
    await expect.poll(() => heard.length).toBeGreaterThan(0);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toBeInstanceOf(MediaGenError);
    expect((reports[0] as Error).message).not.toContain(MARK);
  });

  it('a well-formed failed event and a feed announcement still cross instances', async () => {
    const prefix = uniquePrefix('hostile-ok');
    const [a, b] = [new RedisGenerationEvents({ redis: connection(), prefix }), new RedisGenerationEvents({ redis: connection(), prefix })];
    closers.push(
      () => a.close(),
      () => b.close(),
    );
    const heard: WebhookEvent[] = [];
    b.subscribe('g-2', (e) => heard.push(e));
    b.subscribe('feed:abc', (e) => heard.push(e));
    await Promise.all([a.ready(), b.ready()]);
    const failed = {
      type: 'generation.failed',
      deliveryId: 'd-f',
      data: { generation_id: 'g-2', status: 'failed', error_code: 'model_unavailable', error_message: 'down', retryable: true },
    } as unknown as WebhookEvent;
    const announced = {
      type: 'generation.submitted',
      deliveryId: undefined,
      data: { generation_id: 'feed:abc', submitted_id: 'g-3' },
    } as unknown as WebhookEvent;
    await a.publish(failed);
    await a.publish(announced);
    await expect.poll(() => heard.length).toBe(2);
    expect(heard).toEqual([failed, announced]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { type Stack, startStack } from './support/stack';

const THREE_DAYS_MS = 3 * 24 * 3600_000;

/** Event-driven: reads until the condition holds, with a deadline load cannot blow. */
async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function completed(stack: Stack, prompt: string) {
  const { status, body } = await stack.json('/api/generations', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-fast', prompt }),
  });
  expect(status).toBe(202);
  return eventually(async () => (await stack.list()).find((g) => g.generation_id === body.generation_id && g.status === 'completed'));
}

const statusOf = async (url: string) => (await fetch(url)).status;

describe('the studio: earlier generations after restarts and link expiry (the ledger)', () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it('after an app restart on the same database, an earlier generation is listed with a working link', async () => {
    stack = await startStack();
    const done = await completed(stack, 'before the restart');
    await stack.restart();
    const again = (await stack.list()).find((g) => g.generation_id === done.generation_id);
    expect(again).toMatchObject({ status: 'completed', available: true, params: { prompt: 'before the restart' } });
    const image = await fetch(again.output_url);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toMatch(/^image\//);
  });

  it('when the service forgot it too (emulator restarted), it is listed as no longer available, never with a dead link', async () => {
    stack = await startStack();
    const done = await completed(stack, 'the service forgets');
    await stack.restartEmulator();
    expect(await statusOf(done.output_url)).not.toBe(200);
    const gone = (await stack.list()).find((g) => g.generation_id === done.generation_id);
    expect(gone).toMatchObject({ status: 'completed', available: false, output_url: null, output_urls: null });
    expect((await stack.list()).find((g) => g.generation_id === done.generation_id)).toMatchObject({ available: false });
  });

  it('3 days later (the emulator clock), a restarted app lists a freshly signed link that works', async () => {
    stack = await startStack();
    const done = await completed(stack, 'three days later');
    await stack.advanceClock(THREE_DAYS_MS + 60_000);
    expect(await statusOf(done.output_url)).not.toBe(200);
    await stack.restart();
    const later = (await stack.list()).find((g) => g.generation_id === done.generation_id);
    expect(later).toMatchObject({ status: 'completed', available: true });
    expect(later.output_url).not.toBe(done.output_url);
    expect(await statusOf(later.output_url)).toBe(200);
  });
});

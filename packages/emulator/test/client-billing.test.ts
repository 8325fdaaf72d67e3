import { ConnectionError, MediaGenClient, type MediaGenError } from '@mediagen/core';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type Emu, emulator, KEY, proAccount } from './helpers.js';

/**
 * Issue 10, item 1: the answer to a submit is lost after the emulator billed it. The SDK's
 * error carries the idempotency key it used, and resending with that key bills nothing more.
 */
const emu: Emu = await emulator({ timeScale: 0.001, accounts: [proAccount()] });
afterAll(() => emu.close());
beforeEach(async () => {
  await emu.control('POST', '/reset');
});

const reserves = async () => {
  const account = (await emu.control('GET', '/accounts/acct_pro')).body;
  return account.ledger.filter((row: { type: string }) => row.type === 'reserve').length;
};
const loseAnswers = () => emu.control('POST', '/faults', { endpoint: 'generate', count: 5, reset: true, when: 'after' });

describe('a retry after an exhausted submit bills once', () => {
  it('create: the ConnectionError carries the key; resending with it returns the same generation, one reserve', async () => {
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, validate: false });
    await loseAnswers();
    const error = (await client.generations
      .create({ model: 'image-fast', prompt: 'x' }, { maxRetries: 0 })
      .catch((e: unknown) => e)) as MediaGenError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.retryable).toBe(true);
    expect(error.idempotencyKey).toEqual(expect.any(String));
    await emu.control('DELETE', '/faults');
    const retried = await client.generations.create({ model: 'image-fast', prompt: 'x' }, { idempotencyKey: error.idempotencyKey! });
    const again = await client.generations.create({ model: 'image-fast', prompt: 'x' }, { idempotencyKey: error.idempotencyKey! });
    expect(again.generation_id).toBe(retried.generation_id);
    expect(await reserves()).toBe(1);
  });

  it('create with the default retries: every attempt of the call reuses one key, so lost answers still bill once', async () => {
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, validate: false });
    await emu.control('POST', '/faults', { endpoint: 'generate', count: 2, reset: true, when: 'after' });
    const submitted = await client.generations.create({ model: 'image-fast', prompt: 'x' }, { maxRetries: 2 });
    expect(submitted.generation_id).toEqual(expect.any(String));
    expect(await reserves()).toBe(1);
  });

  it('run: the same, then the resent run completes the one billed generation', async () => {
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, validate: false });
    await loseAnswers();
    const error = (await client.generations
      .run({ model: 'image-fast', prompt: 'x' }, { maxRetries: 0 })
      .catch((e: unknown) => e)) as MediaGenError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.idempotencyKey).toEqual(expect.any(String));
    await emu.control('DELETE', '/faults');
    const done = await client.generations.run(
      { model: 'image-fast', prompt: 'x' },
      { idempotencyKey: error.idempotencyKey!, intervalMs: 5 },
    );
    expect(done.status).toBe('completed');
    expect(await reserves()).toBe(1);
  });

  it('without the key (what apps did before), the resend is a second charge: the test can tell', async () => {
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, validate: false });
    await emu.control('POST', '/faults', { endpoint: 'generate', count: 1, reset: true, when: 'after' });
    await client.generations.create({ model: 'image-fast', prompt: 'x' }, { maxRetries: 0 }).catch(() => {});
    await client.generations.create({ model: 'image-fast', prompt: 'x' }, { maxRetries: 0 });
    expect(await reserves()).toBe(2);
  });
});

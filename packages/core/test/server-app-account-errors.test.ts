/**
 * The service's answers about the app's own key or account reach the browser as the app's
 * server fault, not as the user's: a 401 passed on would read as "your session ended" to the
 * app's page, and the operator, who alone can act, would never hear of it (only 5xx reach
 * `onError`). Each one, from the real emulator, through the handler.
 */
import { startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MediaGenClient } from '../src/index';
import { createMediaGenHandler } from '../src/server';

const KEY = 'svc_live_app_account_errors';
let emulator: Awaited<ReturnType<typeof startEmulator>>;

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    config: { timeScale: 0.001, accounts: [{ id: 'acct_app', tier: 'pro', balance: 15_000, keys: [{ key: KEY }] }] },
  });
});
afterAll(() => emulator?.close());
beforeEach(() => emulator.reset());

function handlerWith(apiKey = KEY) {
  const reported: unknown[] = [];
  const handler = createMediaGenHandler({
    client: new MediaGenClient({ apiKey, baseUrl: emulator.url, maxRetries: 0 }),
    onError: (error) => void reported.push(error),
  });
  const credits = async () => {
    const res = await handler(new Request('http://app.test/credits'));
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { credits, reported };
}

describe("the service's answers about the app's key or account", () => {
  // UNAUTHORIZED, an earlier form of the contract, is read as AUTH_MISSING.
  it.each([
    [401, 'KEY_INVALID', 500, 'KEY_INVALID'],
    [401, 'KEY_REVOKED', 500, 'KEY_REVOKED'],
    [401, 'AUTH_MISSING', 500, 'AUTH_MISSING'],
    [401, 'UNAUTHORIZED', 500, 'AUTH_MISSING'],
    [403, 'TIER_LOCKED', 500, 'TIER_LOCKED'],
    [403, 'API_DISABLED', 503, 'API_DISABLED'],
    [403, 'ACCOUNT_BANNED', 503, 'ACCOUNT_BANNED'],
    [403, 'ACCOUNT_FROZEN', 503, 'ACCOUNT_FROZEN'],
    [403, 'ACCOUNT_RESTRICTED', 503, 'ACCOUNT_RESTRICTED'],
  ])('%i %s is the app’s %i, its message kept on the server and reported once', async (status, sent, answered, code) => {
    await emulator.faults.add({ endpoint: 'credits', status, code: sent, message: `about the app: ${sent}` });
    const { credits, reported } = handlerWith();
    const res = await credits();
    expect(res.status).toBe(answered);
    expect(res.body).toMatchObject({ error: code, message: 'Internal error.', next: 'Retry later; the server log has the details.' });
    expect(JSON.stringify(res.body)).not.toContain('about the app');
    expect(reported).toHaveLength(1);
    expect((reported[0] as { code: string }).code).toBe(code);
  });

  it('a key the service does not know, for real: 500 KEY_INVALID, the key nowhere in the answer', async () => {
    const { credits, reported } = handlerWith('svc_live_not_on_file_anywhere');
    const res = await credits();
    expect([res.status, res.body.error]).toEqual([500, 'KEY_INVALID']);
    expect(JSON.stringify(res.body)).not.toContain('not_on_file');
    expect(reported).toHaveLength(1);
  });

  it('the other answers still reach the browser as they came: 402, 429', async () => {
    await emulator.faults.add({ endpoint: 'credits', status: 402, code: 'INSUFFICIENT_CREDITS' });
    const { credits, reported } = handlerWith();
    expect((await credits()).status).toBe(402);
    await emulator.faults.add({ endpoint: 'credits', status: 429, code: 'RATE_LIMIT' });
    expect((await credits()).status).toBe(429);
    expect(reported).toEqual([]);
  });
});

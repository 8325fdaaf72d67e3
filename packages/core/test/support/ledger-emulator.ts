import { type EmulatorConfig, type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { MediaGenClient } from '../../src/index';

export const KEY = 'svc_live_ledger';
export const ACCOUNT = 'acct_ledger';

/** A real emulator for ledger tests, with the controls they use and a count of status reads. */
export async function ledgerEmulator(extra: Record<string, unknown> = {}) {
  const emulator: RunningEmulator = await startEmulator({
    port: 0,
    config: {
      timeScale: 0.001,
      accounts: [{ id: ACCOUNT, tier: 'ultimate', balance: 50_000, keys: [{ key: KEY }], ...extra }],
    } as EmulatorConfig,
  });
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${emulator.url}/__emulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return response.json() as Promise<Record<string, any>>;
  };
  const reads: string[] = [];
  const counting: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if ((init?.method ?? 'GET') === 'GET' && url.includes('/api/v1/generations/')) reads.push(url.split('/').pop() as string);
    return fetch(input, init);
  };
  const client = (options: { maxRetries?: number } = {}) =>
    new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, fetch: counting, maxRetries: options.maxRetries ?? 2 });
  return {
    url: emulator.url,
    close: () => emulator.close(),
    control,
    client,
    reads,
    /** The emulator's clock (ms): where its links' expiry is counted. */
    async now(): Promise<number> {
      const health = await control('GET', '/health');
      return Date.parse(health.now);
    },
    advance: (ms: number) => control('POST', '/clock', { advanceMs: ms }),
    reset: () => control('POST', '/reset'),
    fault: (fault: Record<string, unknown> | Record<string, unknown>[]) => control('POST', '/faults', fault),
    /** Reservations the account was billed, per generation id. */
    async reserves(): Promise<string[]> {
      const account = await control('GET', `/accounts/${ACCOUNT}`);
      return (account.ledger as { type: string; generation_id?: string }[])
        .filter((l) => l.type === 'reserve')
        .map((l) => l.generation_id ?? '');
    },
    /** Resolves once the emulator has the generation terminal (its own state, read without the ledger). */
    async settled(id: string): Promise<void> {
      await new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url }).generations.wait(id, { intervalMs: 20, timeoutMs: 60_000 });
    },
  };
}

/** A clock for the ledger that tests move by hand. */
export function manualClock(start = Date.now()) {
  let t = start;
  return { now: () => t, set: (ms: number) => (t = ms), advance: (ms: number) => (t += ms) };
}

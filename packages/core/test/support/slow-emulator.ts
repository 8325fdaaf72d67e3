import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll } from 'vitest';

/**
 * A real emulator for the test file, started before its tests and closed after: one ultimate
 * account with `key`, its generations running at a thousand times their length, so nothing
 * finishes unless a test says so (a signed webhook is what ends one). Read `url` inside tests.
 */
export function slowEmulator(key: string, accountId: string): { readonly url: string } {
  let emulator: RunningEmulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({
      port: 0,
      config: { timeScale: 1000, accounts: [{ id: accountId, tier: 'ultimate', balance: 100_000, keys: [{ key }] }] },
    });
  });
  afterAll(() => emulator?.close());
  return {
    get url() {
      if (!emulator) throw new Error('slowEmulator: read url inside a test, once beforeAll has run.');
      return emulator.url;
    },
  };
}

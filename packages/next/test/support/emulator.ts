import { MediaGenClient } from '@mediagen/core';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';

export const KEY = 'svc_live_next_actions';
export const ACCOUNT = 'acct_next';

/**
 * A real emulator on a free port with one Ultimate account (20 in flight: the tests' quick
 * submits never meet the concurrency limit on a loaded machine), and a client for it.
 */
export async function startService(): Promise<{ emulator: RunningEmulator; client: MediaGenClient; reserves(): Promise<number> }> {
  const emulator = await startEmulator({
    port: 0,
    config: { timeScale: 0.005, accounts: [{ id: ACCOUNT, tier: 'ultimate', balance: 15_000, keys: [{ key: KEY }] }] },
  });
  const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url });
  const reserves = async () => {
    const account = (await (await fetch(`${emulator.url}/__emulator/accounts/${ACCOUNT}`)).json()) as { ledger: { type: string }[] };
    return account.ledger.filter((row) => row.type === 'reserve').length;
  };
  return { emulator, client, reserves };
}

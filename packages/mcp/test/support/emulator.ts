import { type RunningEmulator, startEmulator } from '@mediagen/emulator';

export const ACCOUNT = 'acct_mcp';
export const API_KEY = 'svc_live_mcp_test';

/** A real emulator on a free port; renders fast (timeScale), `[[hold]]` in a prompt holds one until released. */
export function emulator(balance = 10_000): Promise<RunningEmulator> {
  return startEmulator({
    port: 0,
    config: { timeScale: 0.01, accounts: [{ id: ACCOUNT, tier: 'pro', balance, keys: [{ key: API_KEY }] }] },
  });
}

/** Credits reserved by submits, counted from the emulator's own ledger: one `reserve` row per billed generation. */
export async function bills(emu: RunningEmulator): Promise<number> {
  const account = await emu.accounts.get(ACCOUNT);
  return account.ledger.filter((row) => row.type === 'reserve').length;
}

import { ConfigurationError } from '@mediagen/core';
import { EMULATOR_BASE_URL, EMULATOR_COMMAND } from '@mediagen/core/wire';

export interface LocalService {
  /** Where the client goes: undefined keeps core's own default (env, else the emulator's address). */
  baseUrl?: string;
  /** Said once on stderr: what the server runs against. */
  note: string;
  close(): Promise<void>;
}

/**
 * What the stdio server runs against. With `MEDIAGEN_API_KEY` or `MEDIAGEN_BASE_URL` set: that
 * (core reads them). With neither: the emulator at its default address if one answers there;
 * else one started in this process on that address, so `npx @mediagen/mcp` works with no
 * account. Its generations live as long as this process (the ledger file keeps its records, but
 * a restarted emulator no longer knows them): for results that outlive a restart, run
 * `EMULATOR_COMMAND` separately or set a key.
 */
export async function localService(env: NodeJS.ProcessEnv): Promise<LocalService> {
  if (env.MEDIAGEN_API_KEY || env.MEDIAGEN_BASE_URL) return { note: 'using MEDIAGEN_BASE_URL / MEDIAGEN_API_KEY', close: async () => {} };
  if (await answers(EMULATOR_BASE_URL)) return { note: `using the emulator at ${EMULATOR_BASE_URL}`, close: async () => {} };
  const { port, hostname } = new URL(EMULATOR_BASE_URL);
  try {
    const { startEmulator } = await import('@mediagen/emulator');
    // Loopback inputs on: files the agent names are served to it by this process (stdio.ts).
    const emulator = await startEmulator({ port: Number(port), host: hostname, allowLoopbackInputs: true });
    return {
      note: `no MEDIAGEN_API_KEY or MEDIAGEN_BASE_URL, and nothing answered at ${EMULATOR_BASE_URL}: started the emulator in this process there (its generations last as long as this process; run \`${EMULATOR_COMMAND}\` separately to keep them across restarts)`,
      close: () => emulator.close(),
    };
  } catch (error) {
    throw new ConfigurationError(
      `No MEDIAGEN_API_KEY or MEDIAGEN_BASE_URL is set, nothing answers at ${EMULATOR_BASE_URL}, and the emulator could not start there (${(error as { code?: string }).code ?? 'error'}). Start it with \`${EMULATOR_COMMAND}\`, or set MEDIAGEN_API_KEY.`,
    );
  }
}

async function answers(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/__emulator/health`, { signal: AbortSignal.timeout(1500) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

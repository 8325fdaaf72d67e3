import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, type EmulatorConfig } from './config.js';
import { createHandler } from './server.js';
import { EmulatorState } from './state.js';

export interface StartOptions {
  /** 0 picks a free port. Default 4010. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A parsed config object or the path of a JSON file. */
  config?: EmulatorConfig | string;
}

export interface RunningEmulator {
  /** Base address, e.g. `http://127.0.0.1:4010`. */
  url: string;
  close(): Promise<void>;
}

/** Starts the emulator; resolves once it listens (and `/__emulator/health` answers 200). */
export async function startEmulator(options: StartOptions = {}): Promise<RunningEmulator> {
  const config = loadConfig(options.config);
  const state = new EmulatorState(config);
  const server = createServer({ keepAliveTimeout: 65_000 }, createHandler(state));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4010, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${addr.port}`;
  state.baseUrl = url;
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        state.close();
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}

export { ConfigError, DEFAULT_ACCOUNT_ID, DEFAULT_KEY, resolveConfig } from './config.js';
export type { AccountConfig, AccountStatus, EmulatorConfig, KeyConfig, ResolvedConfig, Tier, WebhookConfig } from './config.js';
export { catalog } from './catalog.js';
export { TIER_LIMITS, type TierLimits, type LedgerEntry } from './accounts.js';
export type { DeliveryRow } from './webhooks.js';
export type { Fault, FaultEndpoint } from './faults.js';

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, TIMEOUT_CHECK_INTERVAL_MS } from './bounds.js';
import { ConfigError, type EmulatorConfig, loadConfig } from './config.js';
import { RequestIds } from './http.js';
import { createClientErrorListener } from './protocol.js';
import { createHandler } from './server.js';
import { EmulatorState } from './state.js';
import { type EmulatorControls, emulatorControls } from './test-controls.js';
import { createWebHandler } from './web.js';

export interface StartOptions {
  /** 0 picks a free port. Default 4010. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A parsed config object or the path of a JSON file. */
  config?: EmulatorConfig | string;
  /**
   * The base address output links and `url` name, for clients that reach the emulator by another
   * name than the one it listens on (a container, `--host 0.0.0.0`). Default: the listening address.
   * Never taken from a request's `Host` header.
   */
  publicUrl?: string;
  /** Time to receive a whole request, body included, before a `408` JSON answer. Default 15,000. */
  requestTimeoutMs?: number;
  /** Time to receive the request headers. Default 10,000 (capped at `requestTimeoutMs`). */
  headersTimeoutMs?: number;
  /**
   * True turns on the config's `allowLoopbackInputs` (input links on loopback, http too, for
   * local development; the real service never fetches them). Default: the config's setting.
   */
  allowLoopbackInputs?: boolean;
}

/** A listening emulator, with the same test controls as `createEmulator` (`emu.faults.release()`, `emu.deliveries.settled(id)`, …). */
export interface RunningEmulator extends EmulatorControls {
  /** Base address, e.g. `http://127.0.0.1:4010` (the `publicUrl` when one is given). */
  url: string;
  /** The port it listens on (the one picked when started with port 0). */
  port: number;
  close(): Promise<void>;
}

/** Starts the emulator; resolves once it listens (and `/__emulator/health` answers 200). */
export async function startEmulator(options: StartOptions = {}): Promise<RunningEmulator> {
  const loaded = loadConfig(options.config);
  const config = options.allowLoopbackInputs ? { ...loaded, allowLoopbackInputs: true } : loaded;
  const publicUrl = options.publicUrl === undefined ? undefined : checkPublicUrl(options.publicUrl);
  const state = new EmulatorState(config);
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const inFlight = new WeakMap<Duplex, ServerResponse>();
  const ids = new RequestIds();
  const server = createServer(
    {
      keepAliveTimeout: 65_000,
      requestTimeout,
      // Node refuses a headers timeout longer than the request timeout.
      headersTimeout: Math.min(options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout),
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, requestTimeout),
    },
    createHandler(state, inFlight, ids),
  );
  server.on('clientError', createClientErrorListener(inFlight, ids));
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
  const url = publicUrl ?? `http://${shownHost}:${addr.port}`;
  state.baseUrl = url;
  return {
    url,
    port: addr.port,
    ...emulatorControls(state, createWebHandler(state, new URL(url)), url),
    close: () =>
      new Promise<void>((resolve, reject) => {
        state.close();
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** An http(s) origin (a path prefix allowed), without credentials, query or fragment; no trailing slash. */
function checkPublicUrl(value: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {}
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.username || parsed.password || parsed.search || parsed.hash) {
    throw new ConfigError('publicUrl must be an http(s) address without credentials, query or fragment, e.g. http://emulator:4010');
  }
  return parsed.href.replace(/\/+$/, '');
}

export { type LedgerEntry, TIER_LIMITS, type TierLimits } from './accounts.js';
export { catalog } from './catalog.js';
export type {
  AccountConfig,
  AccountStatus,
  EmulatorConfig,
  EnvLike,
  InputMaxBytes,
  KeyConfig,
  ResolvedConfig,
  Tier,
  WebhookConfig,
} from './config.js';
export { ConfigError, DEFAULT_ACCOUNT_ID, DEFAULT_KEY, resolveConfig } from './config.js';
export type { Fault, FaultEndpoint, HeldEndpoint, HeldRequest } from './faults.js';
export { type CreateEmulatorOptions, createEmulator, IN_PROCESS_URL, type InProcessEmulator } from './in-process.js';
export { SERVE_FLAGS, type Served, ServeError, type ServeFlags, serveFromFlags } from './serve.js';
export { type AccountPatch, type AccountView, EmulatorControlError, type EmulatorControls, type FaultInput } from './test-controls.js';
export type { DeliveryRow, WebhookFetch } from './webhooks.js';

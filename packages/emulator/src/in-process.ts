import { ConfigError, type EmulatorConfig, loadConfig } from './config.js';
import { EmulatorState } from './state.js';
import { type EmulatorControls, emulatorControls } from './test-controls.js';
import { createWebHandler, targetOf } from './web.js';
import type { WebhookFetch } from './webhooks.js';

/** The base address an in-process emulator answers on: a reserved `.test` name never reaches a network. */
export const IN_PROCESS_URL = 'http://emulator.mediagen.test';

export interface CreateEmulatorOptions {
  /** A parsed config object or the path of a JSON file (the same shape `startEmulator` takes). */
  config?: EmulatorConfig | string;
  /** The base address it answers on and builds output links on. Default `http://emulator.mediagen.test`. */
  url?: string;
  /**
   * Where webhook deliveries go: a fetch-shaped receiver in the same process (a Next route
   * handler, `app.fetch`, a function), called with the signed `Request` for every attempt.
   * Without it, deliveries go over the network to the configured URLs, as `startEmulator`'s do.
   */
  webhookFetch?: WebhookFetch;
}

export interface InProcessEmulator extends EmulatorControls {
  /** The base address: give it to the client as `baseUrl`. Output links are built on it. */
  readonly url: string;
  /**
   * A `fetch` answered by the emulator with no port: `new MediaGenClient({ baseUrl: emu.url,
   * fetch: emu.fetch })`. Output links are fetchable through it. A URL outside `url` rejects, as
   * an unreachable host does.
   */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The same emulator as a Web handler, `(Request) => Response` (what the MSW handlers mount). */
  handler(request: Request): Promise<Response>;
  /** Stops timers, drops pending webhook deliveries and ends held requests (as a connection reset). */
  close(): Promise<void>;
}

function baseOf(url: string): URL {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {}
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.username || parsed.password || parsed.search || parsed.hash) {
    throw new ConfigError('url must be an http(s) address without credentials, query or fragment, e.g. http://emulator.mediagen.test');
  }
  return parsed;
}

/**
 * The emulator in the test's own process: no port, no child process. Every answer comes from
 * the same router the `mediagen-emulator` server runs, so a test against `emu.fetch` sees what
 * a test against `startEmulator` sees.
 */
export function createEmulator(options: CreateEmulatorOptions = {}): InProcessEmulator {
  const config = loadConfig(options.config);
  const base = baseOf(options.url ?? IN_PROCESS_URL);
  const url = base.href.replace(/\/+$/, '');
  const state = new EmulatorState(config, options.webhookFetch ? { webhookFetch: options.webhookFetch } : {});
  state.baseUrl = url;
  const handler = createWebHandler(state, base);

  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (targetOf(new URL(request.url), base) === null) {
      throw new TypeError(`fetch failed: the in-process emulator answers only under ${url} (got ${new URL(request.url).origin})`);
    }
    // The caller's signal (an abort, the client's per-attempt timeout) ends the wait at once,
    // as over the network, even while a `delayMs` fault holds the answer.
    const { signal } = request;
    signal.throwIfAborted();
    const response = await new Promise<Response>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      handler(request)
        .then(resolve, reject)
        .finally(() => signal.removeEventListener('abort', onAbort));
    });
    // Response.error() is the router's connection reset: fetch rejects on it, as undici does.
    if (response.type === 'error')
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
    return response;
  };

  return {
    url,
    fetch,
    handler,
    ...emulatorControls(state, handler, url),
    close: async () => {
      state.close();
    },
  };
}

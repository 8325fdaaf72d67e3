import { afterEach, vi } from 'vitest';
import { MediaGenClient, type RetryInfo } from '../../src/index';
import { type Responder, startScriptedServer } from './scripted-server';

type ClientOptions = ConstructorParameters<typeof MediaGenClient>[0];

/**
 * For a test file: `setup(responder, options?)` gives a client on its own scripted server, with
 * every retry recorded; servers close (and real timers come back) after each test. `defaults`
 * apply to every client of the file, `options` to one.
 */
export function scriptedClients(defaults: ClientOptions = {}) {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(closers.splice(0).map((close) => close()));
  });
  return async function setup(responder: Responder, options: ClientOptions = {}) {
    const server = await startScriptedServer(responder);
    closers.push(server.close);
    const retries: RetryInfo[] = [];
    const client = new MediaGenClient({
      apiKey: 'svc_live_test',
      baseUrl: server.url,
      validate: false,
      onRetry: (info) => retries.push(info),
      ...defaults,
      ...options,
    });
    return { server, client, retries };
  };
}

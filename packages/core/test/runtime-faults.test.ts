import { afterAll, describe, expect, it } from 'vitest';
import { MediaGenClient } from '../src/index';
import { readEnv } from '../src/util/env';
import { generationBody, json, startScriptedServer } from './support/scripted-server';

/**
 * Faults the runtime matrix (runtimes/) found on real runtimes, pinned here on Node so they stay
 * fixed between matrix runs: each fake below behaves as that runtime's real API does.
 */
const server = await startScriptedServer((req, res) =>
  req.method === 'POST'
    ? json(res, 202, {
        generation_id: 'g-rt',
        status: 'pending',
        model: 'image-fast',
        credits_estimate: 4,
        pricing_source: 'catalog_default',
        created_at: '',
      })
    : json(res, 200, generationBody('completed')),
);
afterAll(() => server.close());

/** workerd's (and browsers') fetch: "Illegal invocation" unless called with no `this` or the global one. */
function receiverCheckedFetch(this: unknown, input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  if (this !== undefined && this !== globalThis) {
    return Promise.reject(new TypeError('Illegal invocation: function called with incorrect `this` reference.'));
  }
  return fetch(input, init);
}

/** Deno's `process.env` without `--allow-env`: every read throws `NotCapable`. */
function deniedEnv(): NodeJS.ProcessEnv {
  return new Proxy({} as NodeJS.ProcessEnv, {
    get(_target, name) {
      throw new Error(`NotCapable: Requires env access to "${String(name)}", run again with the --allow-env flag`);
    },
  });
}

function withEnv<T>(env: NodeJS.ProcessEnv, body: () => T): T {
  const saved = process.env;
  process.env = env;
  try {
    return body();
  } finally {
    process.env = saved;
  }
}

describe('runtime faults', () => {
  it('calls a fetch handed over in options as a plain function, never as a method of its config', async () => {
    const client = new MediaGenClient({
      apiKey: 'svc_live_rt',
      baseUrl: server.url,
      validate: false,
      maxRetries: 0,
      fetch: receiverCheckedFetch,
    });
    const submitted = await client.generations.create({ model: 'image-fast', prompt: 'rt' });
    const generation = await client.generations.get(submitted.generation_id);
    expect(generation.status).toBe('completed');
  });

  it('reads an environment it may not read (Deno without --allow-env) as unset', () => {
    expect(withEnv(deniedEnv(), () => readEnv('MEDIAGEN_LOG'))).toBeUndefined();
    const client = withEnv(deniedEnv(), () => new MediaGenClient({ apiKey: 'svc_live_rt', baseUrl: server.url }));
    expect(client.baseUrl).toBe(server.url);
  });
});

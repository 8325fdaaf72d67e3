import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError, ConnectionError, MediaGenClient, type MediaGenError, verifyWebhook } from '../src/index';
import { errorBody, json, startScriptedServer } from './support/scripted-server';

/** A key and a webhook secret that must never be seen outside the SDK. */
const KEY = 'svc_live_Sup3rS3cretKeyValue_0123456789';
const WEBHOOK_SECRET = 'whsec_Sup3rS3cretWebhookSecret_987654';
const SECRETS = [KEY, WEBHOOK_SECRET, 'Sup3rS3cret', 'pa55word'];

/** Everything an app could print or send on about an error. */
function everywhere(error: unknown): string {
  const e = error as MediaGenError;
  const cause = e.cause as Error | undefined;
  return [
    e.message,
    String(e),
    e.stack,
    JSON.stringify(e),
    inspect(e, { depth: 10 }),
    cause ? [cause.message, String(cause), cause.stack, inspect(cause, { depth: 10 })].join('\n') : '',
  ].join('\n');
}

function expectClean(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

const logLines: string[] = [];
const logger = {
  debug: (line: string) => logLines.push(line),
  info: (line: string) => logLines.push(line),
  warn: (line: string) => logLines.push(line),
  error: (line: string) => logLines.push(line),
};

const server = await startScriptedServer((req, res) => {
  // A hostile or debugging proxy that echoes the request's Authorization header back.
  const echoed = String(req.headers.authorization);
  if (req.path.endsWith('/echo-json')) return json(res, 500, errorBody('INTERNAL_ERROR', { message: `got ${echoed}` }));
  if (req.path.endsWith('/credits')) {
    res.writeHead(502, { 'content-type': 'text/html' });
    return res.end(`<html><pre>Authorization: ${echoed}</pre></html>`);
  }
  return json(res, 401, errorBody('KEY_INVALID', { message: `key ${echoed} is unknown` }));
});
afterAll(() => server.close());

describe('the API key at construction', () => {
  it.each([
    ['a line break (two keys pasted)', 'svc_live_Sup3rS3cretA\nsvc_live_Sup3rS3cretB'],
    ['a carriage return', `${KEY}\r`],
    ['a space inside', 'svc_live_Sup3rS3cret KeyValue'],
    ['a control character', 'svc_live_Sup3rS3cret\u0000KeyValue'],
    ['a non-ASCII character', 'svc_live_Sup3rS3cretKéyValue'],
  ])('refuses a key with %s, without echoing it', (_why, apiKey) => {
    let error: unknown;
    try {
      new MediaGenClient({ apiKey, baseUrl: server.url });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expectClean(everywhere(error));
    expect((error as Error).message).toMatch(/malformed/);
  });

  it('takes every well-formed key, the emulator demo key and keys without the svc_ prefix', () => {
    for (const apiKey of ['svc_live_emulator_demo', KEY, 'acme_live_abc-DEF.123~+/==', 'k']) {
      expect(() => new MediaGenClient({ apiKey, baseUrl: server.url })).not.toThrow();
    }
  });

  it('a key from the environment is checked the same way', () => {
    process.env.MEDIAGEN_API_KEY = 'svc_live_Sup3rS3cretA\u0007B';
    try {
      expect(() => new MediaGenClient({ baseUrl: server.url })).toThrow(ConfigurationError);
    } finally {
      delete process.env.MEDIAGEN_API_KEY;
    }
  });
});

describe('baseUrl with credentials', () => {
  it('is refused, and the error does not carry the password', () => {
    for (const baseUrl of ['http://user:pa55word@127.0.0.1:4010', 'https://pa55word@api.example.test/', 'http://:pa55word@h']) {
      let error: unknown;
      try {
        new MediaGenClient({ apiKey: KEY, baseUrl });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(/credentials/);
      expectClean(everywhere(error));
    }
  });

  it('an unparseable baseUrl is not echoed either', () => {
    expect(() => new MediaGenClient({ apiKey: KEY, baseUrl: 'pa55word' })).toThrow(/http\(s\) URL, without credentials/);
  });
});

describe('no secret in any error or log line', () => {
  it('a fetch failure that quotes the Authorization header is redacted, cause and stack included', async () => {
    // What undici says for a header it refuses; a custom fetch may say anything.
    const leaky: typeof fetch = async (_url, init) => {
      const auth = (init!.headers as Record<string, string>).authorization;
      throw new TypeError(`Headers.append: "${auth}" is an invalid header value.`, {
        cause: new Error(`socket for ${auth} closed`),
      });
    };
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: server.url, fetch: leaky, maxRetries: 0, logLevel: 'debug', logger });
    const error = await client.credits.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    const text = everywhere(error);
    expect(text).toContain('[redacted]');
    expectClean(text);
  });

  it('a suite of failing calls: every error and every log line is free of the key and the webhook secret', async () => {
    logLines.length = 0;
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: server.url, maxRetries: 0, logLevel: 'debug', logger });
    const failures: unknown[] = [];
    const capture = (p: Promise<unknown>) =>
      p.then(
        () => expect.unreachable(),
        (e: unknown) => failures.push(e),
      );
    await capture(client.generations.get('echo-json'));
    await capture(client.credits.get());
    await capture(client.models.list());
    await capture(client.generations.create({ model: 'image-fast', prompt: 'x' }, { maxRetries: 0 }));
    await capture(client.generations.run({ model: 'image-fast', prompt: 'x' }, { maxRetries: 0 }));
    await capture(
      new MediaGenClient({ apiKey: KEY, baseUrl: 'http://127.0.0.1:1', maxRetries: 0, logLevel: 'debug', logger }).credits.get(),
    );
    await capture(verifyWebhook({ body: '{"status":"completed"}', signature: 'sha256=00', secrets: WEBHOOK_SECRET }));
    await capture(verifyWebhook({ body: '{"status":"completed"}', signature: `sha256=${'0'.repeat(64)}`, secrets: WEBHOOK_SECRET }));
    expect(failures).toHaveLength(8);
    for (const failure of failures) expectClean(everywhere(failure));
    expect(logLines.length).toBeGreaterThan(5);
    expectClean(logLines.join('\n'));
    // The echoes were there to be redacted: the proof is not vacuous.
    expect(String((failures[0] as Error).message)).toContain('Bearer [redacted]');
  });
});

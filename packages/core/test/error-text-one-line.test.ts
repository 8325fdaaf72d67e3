import { inspect } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { errorFromResponse } from '../src/http/response-error';
import { ConfigurationError, GenerationFailedError, MediaGenClient, MediaGenError, parseOutputLink } from '../src/index';
import { createGenerationLedger, MemoryGenerationStore } from '../src/ledger';
import type { Generation } from '../src/types';
import { oneLine } from '../src/util/one-line';
import { startScriptedServer } from './support/scripted-server';

// Every character that may steer a terminal or split a log line: controls (C0, DEL, C1), format
// characters (bidi controls among them) and the line and paragraph separators.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** Strings weighted towards the hostile: escape sequences, forged log lines, bidi overrides. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({
    unit: fc.constantFrom(
      'a',
      ' ',
      '\n',
      '\r',
      '\t',
      '\x1b',
      '[2J',
      ']0;pwned\x07',
      '\x9b',
      '\u202e',
      '\u2066',
      '\u2028',
      '\x85',
      '\0',
      'é',
      '日',
    ),
    maxLength: 40,
  }),
);

/**
 * What an app prints of an error: its message, code, hint and request id, `String(error)`, and
 * the first line of the stack. (`model` and `field` are names the app matches on, not text it
 * prints; in a JSON log line, JSON escapes their controls.)
 */
function printedParts(error: MediaGenError): string[] {
  const parts = [error.message, error.code, String(error), error.stack?.split('\n')[0] ?? ''];
  for (const value of [error.next, error.requestId]) if (value !== undefined) parts.push(value);
  return parts;
}

function expectOneInertLine(error: MediaGenError) {
  for (const part of printedParts(error)) expect(part).not.toMatch(UNPRINTABLE);
  // The stack's first line is the whole message: nothing of it spilled onto a line of its own.
  expect(error.stack?.split('\n')[0]).toBe(`${error.name}: ${error.message}`);
  expect(inspect(error).split('\n')[0]).toContain(error.message);
}

describe('oneLine', () => {
  it('leaves printable text as it is, whatever the script', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => !/[\p{Cc}\p{Cf}\p{Z}]/u.test(s)),
          { maxLength: 6 },
        ),
        (words) => {
          const text = words.join(' ');
          expect(oneLine(text)).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('turns each run of controls, format characters and separators into one space', () => {
    expect(oneLine('a\r\nb\tc\u2028d\u00a0\u00a0e')).toBe('a b c d e');
    expect(oneLine('\x1b]0;title\x07\u202eevil\u200b!')).toBe(' ]0;title evil !');
    fc.assert(
      fc.property(hostile, (text) => {
        const out = oneLine(text);
        expect(out).not.toMatch(UNPRINTABLE);
        expect(out).not.toContain('  ');
        expect(out.length).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('every error is one inert line, whatever the service said', () => {
  it('an error answer: message, code, hint and request id, whatever the body holds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 400, max: 599 }),
        fc.record({ error: hostile, message: hostile, next: hostile, request_id: hostile, model: hostile, field: hostile }),
        (status, body) => {
          const error = errorFromResponse(status, new Headers(), JSON.stringify({ ...body, details: { field: body.field } }));
          expectOneInertLine(error);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a body that is not the service's (a proxy's page)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 599 }), hostile, (status, text) => {
        expectOneInertLine(errorFromResponse(status, new Headers({ 'content-type': 'text/html' }), `<html>${text}</html>`));
      }),
      { numRuns: 200 },
    );
  });

  it('a failed generation, whatever its error fields hold (strings or not)', () => {
    const anything = fc.oneof(hostile, fc.anything());
    fc.assert(
      fc.property(
        fc.record({
          generation_id: anything,
          request_id: anything,
          error: fc.record({ code: anything, message: anything, retryable: anything }),
        }),
        (payload) => {
          const error = new GenerationFailedError({ ...payload, status: 'failed' } as unknown as Generation);
          expectOneInertLine(error);
          expect(typeof error.code).toBe('string');
          expect(error.code.length).toBeLessThanOrEqual(100);
          expect(error.message.length).toBeLessThanOrEqual(800);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a failed generation whose fields are objects that cannot become text (seed -485655900)', () => {
    const unprintable = [{ toString: '' }];
    const error = new GenerationFailedError({
      generation_id: unprintable,
      request_id: [],
      status: 'failed',
      error: { code: {}, message: unprintable, retryable: [] },
    } as unknown as Generation);
    expectOneInertLine(error);
    expect(error.code).toBe('unknown');
  });

  it('a link that is not a signed output link (a service field, or a value an app passes on)', () => {
    fc.assert(
      fc.property(hostile, (link) => {
        let thrown: unknown;
        try {
          parseOutputLink(link);
        } catch (error) {
          thrown = error;
        }
        // A hostile string may still parse as a link; when it does not, the error quotes it inertly.
        if (thrown !== undefined) {
          expect(thrown).toBeInstanceOf(ConfigurationError);
          expectOneInertLine(thrown as MediaGenError);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('an id from a request path that the ledger does not hold', async () => {
    const ledger = createGenerationLedger({
      client: new MediaGenClient({ apiKey: 'svc_live_one_line', baseUrl: 'http://127.0.0.1:9', maxRetries: 0 }),
      store: new MemoryGenerationStore(),
    });
    await fc.assert(
      fc.asyncProperty(hostile, async (id) => {
        const error = await ledger.wait('owner', id).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ConfigurationError);
        expectOneInertLine(error as MediaGenError);
      }),
      { numRuns: 100 },
    );
  });
});

const forged = 'bad prompt\n2026-11-24T00:00:00Z INFO payment accepted\x1b]0;owned\x07\x1b[2J\u202etxt.exe';
/** A submit of prompt `reject` answers 422; any other is queued as g1, which reads as failed. */
const server = await startScriptedServer((req, res) => {
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.method === 'GET') {
    return json(200, { generation_id: 'g1', status: 'failed', error: { code: 'PROMPT\nREJECTED', message: forged, retryable: false } });
  }
  if (req.body.includes('"reject"')) {
    return json(422, { error: 'INVALID_BODY', message: forged, next: `fix it\r\n${forged}`, request_id: 'req\n1' });
  }
  return json(202, { generation_id: 'g1', status: 'queued' });
});
afterAll(() => server.close());
const client = new MediaGenClient({ apiKey: 'svc_live_one_line', baseUrl: server.url, maxRetries: 0, validate: false });

describe('through a real client', () => {
  it('a 422 whose message forges a log line and retitles the terminal is thrown as one inert line', async () => {
    const error = await client.generations.create({ model: 'image-fast', prompt: 'reject' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaGenError);
    expectOneInertLine(error as MediaGenError);
    expect((error as MediaGenError).message).toContain('bad prompt 2026-11-24T00:00:00Z INFO payment accepted ]0;owned [2J txt.exe');
    expect((error as MediaGenError).requestId).toBe('req 1');
  });

  it('a generation that failed with such a message, followed by run()', async () => {
    const error = await client.generations.run({ model: 'image-fast', prompt: 'x' }, { intervalMs: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GenerationFailedError);
    expectOneInertLine(error as MediaGenError);
    expect((error as GenerationFailedError).code).toBe('PROMPT REJECTED');
    // The generation itself is handed over as the service sent it: the app may need the raw text.
    expect((error as GenerationFailedError).generation.error?.message).toBe(forged);
  });
});

/**
 * A service whose every text field is hostile: any Unicode, and the escape sequences a terminal
 * acts on (the CLI's own colours and line clear among them). Whatever it answers, what the CLI
 * writes carries no control of the service's, and `--json` parses back to what it sent.
 *
 * The commands run in this process (`runCli` from src, over a real HTTP server on a free port)
 * so that fast-check can try many answers; `hostile-service-text-bin.test.ts` runs the built bin
 * on the cases the issue reported.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes';
import { createIo } from '../src/io';
import { runCli } from '../src/program';
import { KEYS } from './helpers';
import { hostileText, OWN_SGR, STEERING } from './terminal-steering';

const ID = '5b0c7e2a-1d3f-4a5b-9c6d-7e8f9a0b1c2d';
const EXPIRY = 4_102_444_800; // 2100-01-01: never near expiry, so no refresh read.

/** Every text field the CLI prints, each its own hostile string. */
const FIELDS = [
  'tier',
  'slug',
  'kind',
  'mode',
  'perMinute',
  'bandMin',
  'requestId',
  'generationId',
  'status',
  'model',
  'createdAt',
  'completedAt',
  'cycle',
  'errorCode',
  'errorMessage',
  'errorNext',
  'pricingSource',
  'filename',
  'outputUrl',
] as const;
type Fields = Record<(typeof FIELDS)[number], string>;

/** What the service answers on this run. */
interface Scenario {
  fields: Fields;
  /** `status` of the generation read (a hostile one only where no wait follows). */
  status: string;
  /** Every route answers this error instead. */
  refuse?: boolean;
  /** The generation lists its one link only (a download that succeeds), not also a hostile non-link. */
  oneLink?: boolean;
}

let scenario: Scenario;
let server: Server;
let base: string;
/** The JSON text of the last answer of each route, as sent. */
const sent: Record<string, string> = {};

function answer(path: string, body: string | undefined): { status: number; body: unknown } {
  const f = scenario.fields;
  if (scenario.refuse)
    return { status: 404, body: { error: f.errorCode, message: f.errorMessage, next: f.errorNext, request_id: f.requestId } };
  if (path === '/api/v1/models') {
    return {
      status: 200,
      body: {
        tier: f.tier,
        credits_balance: 5,
        rate_limit: { per_minute: f.perMinute, max_concurrent: 2 },
        request_id: f.requestId,
        models: [
          // The model the submit commands use: a schema the params check accepts.
          {
            slug: 'm',
            kind: 'image',
            modes: [f.mode],
            params: { prompt: { type: 'string', required: true } },
            credits_band: { min: 1, max: 2 },
          },
          { slug: f.slug, kind: f.kind, modes: [f.mode, f.model], params: {}, credits_band: { min: f.bandMin, max: 3, flat: false } },
        ],
      },
    };
  }
  if (path === '/api/v1/credits') {
    return {
      status: 200,
      body: {
        balance: 1,
        tier: f.tier,
        cycle_resets_at: f.cycle,
        spent_this_cycle: 0,
        granted_this_cycle: 0,
        rate_limit: { per_minute: f.perMinute, max_concurrent: 2 },
        request_id: f.requestId,
      },
    };
  }
  if (path === '/api/v1/generate') {
    if (JSON.parse(body ?? '{}').estimate === true)
      return { status: 200, body: { credits_estimate: 3, pricing_source: f.pricingSource, request_id: f.requestId } };
    return { status: 202, body: { generation_id: f.generationId, status: 'pending', credits_estimate: 3, request_id: f.requestId } };
  }
  if (path.startsWith('/api/v1/generations/')) {
    const failed = scenario.status === 'failed';
    const link = `${base}/api/v1/output/${ID}/${EXPIRY}/sig/0/${encodeURIComponent(f.filename || 'x')}`;
    return {
      status: 200,
      body: {
        generation_id: f.generationId,
        status: scenario.status,
        model: f.model,
        output_url: failed ? null : link,
        // The second entry is no link: `get` prints it.
        output_urls: failed ? null : scenario.oneLink ? [link] : [link, f.outputUrl],
        credits_used: 3,
        duration_ms: 10,
        created_at: f.createdAt,
        completed_at: f.completedAt,
        request_id: f.requestId,
        ...(scenario.status === 'completed' ? {} : { error: { code: f.errorCode, message: f.errorMessage, retryable: true } }),
      },
    };
  }
  return { status: 404, body: { error: 'NOT_FOUND', message: 'no such route', next: 'none', request_id: 'req_x' } };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (path.startsWith('/api/v1/output/')) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end('bytes');
      }
      const { status, body: reply } = answer(path, body);
      const text = JSON.stringify(reply);
      sent[path.startsWith('/api/v1/generations/') ? 'generation' : path] = text;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Runs one command line in this process; resolves with its code and what it wrote. */
async function cli(args: string[], color: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const io = createIo({ stdout, stderr }, { color });
  const code = await runCli([...args, '--base-url', base, '--api-key', KEYS.main, '--max-retries', '0'], io, {});
  return { code, stdout: String(stdout.read() ?? ''), stderr: String(stderr.read() ?? '') };
}

/** Nothing of the service's steers the terminal: with colour off no control at all; with it, only the CLI's own SGR codes. */
function expectInert(output: string, color: boolean, label: string): void {
  const rest = color ? output.replace(OWN_SGR, '') : output;
  const found = STEERING.exec(rest);
  expect(found && `U+${found[0].codePointAt(0)?.toString(16)} at ${found.index}`, `${label}: ${JSON.stringify(output)}`).toBeNull();
}

const fields = fc.record(Object.fromEntries(FIELDS.map((name) => [name, hostileText])) as Record<keyof Fields, typeof hostileText>);

describe('every field the service sends, hostile (fast-check): no control of its own reaches the terminal', () => {
  it('models, credits, get, estimate, generate, wait (completed and failed), and refusals; --json parses back to what was sent', async () => {
    const out = await mkdtemp(join(tmpdir(), 'mediagen-cli-hostile-text-'));
    try {
      await fc.assert(
        fc.asyncProperty(fields, hostileText, fc.boolean(), async (f, status, color) => {
          const runs: Array<[Scenario, string[]]> = [
            [{ fields: f, status }, ['models']],
            [{ fields: f, status }, ['credits']],
            [{ fields: f, status }, ['get', ID]],
            [{ fields: f, status: 'failed' }, ['get', ID]],
            [{ fields: f, status }, ['estimate', '--model', 'm', '--prompt', 'p']],
            [{ fields: f, status }, ['generate', '--model', 'm', '--prompt', 'p']],
            [{ fields: f, status: 'completed', oneLink: true }, ['wait', ID, '--out', out]],
            [{ fields: f, status: 'failed' }, ['wait', ID, '--no-download']],
            [{ fields: f, status, refuse: true }, ['credits']],
            [{ fields: f, status, refuse: true }, ['get', ID]],
          ];
          for (const [s, args] of runs) {
            scenario = s;
            const { code, stdout, stderr } = await cli(args, color);
            expect(code, `${args.join(' ')}: ${stderr}`).not.toBe(EXIT.internal);
            // The download succeeds: the paths and the "completed" line, with the service's text in it, are checked too.
            if (s.oneLink) expect(code, stderr).toBe(EXIT.ok);
            expectInert(stdout + stderr, color, args.join(' '));
          }
          // --json: the very document the service sent, and inert on a terminal too.
          for (const [args, route] of [
            [['models', '--json'], '/api/v1/models'],
            [['credits', '--json'], '/api/v1/credits'],
            [['get', ID, '--json'], 'generation'],
          ] as const) {
            scenario = { fields: f, status };
            const { code, stdout } = await cli([...args], color);
            expect(code).toBe(EXIT.ok);
            expectInert(stdout, false, args.join(' '));
            expect(JSON.parse(stdout)).toEqual(JSON.parse(sent[route] ?? 'null'));
          }
        }),
        { numRuns: 40 },
      );
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 120_000);
});

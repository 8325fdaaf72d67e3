/**
 * The built bin against a service that answers the terminal sequences the CLI styles with
 * (issue 30, finding 8): hidden text (`ESC[8m`) as the tier, a line clear with a forged "done"
 * line as an error code, C1 and bidi controls in the model list. Colour is on (FORCE_COLOR), as
 * on a terminal: the CLI's own colours are written, the service's sequences are not.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers';
import { OWN_SGR, STEERING } from './terminal-steering';

const ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const FORGED = '\r\x1b[2K done: saved 1 file (all good)';
const LIST = {
  tier: 'pro\u202e',
  credits_balance: 5,
  rate_limit: { per_minute: 60, max_concurrent: 2 },
  request_id: 'req_\u009b2J',
  models: [{ slug: 'image-\u009b31mfast', kind: 'image', modes: ['text-to-image\u2066'], params: {}, credits_band: { min: 1, max: 2 } }],
};

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const url = req.url ?? '';
    if (url.startsWith('/api/v1/models')) return json(LIST);
    if (url.startsWith('/api/v1/credits'))
      return json({
        balance: 10,
        tier: 'pro\x1b[8m secret',
        cycle_resets_at: null,
        spent_this_cycle: 0,
        granted_this_cycle: 0,
        rate_limit: { per_minute: 60, max_concurrent: 2 },
        request_id: 'req_t',
      });
    if (url.startsWith(`/api/v1/generations/${ID}`)) {
      const now = new Date().toISOString();
      return json({
        generation_id: ID,
        status: 'failed',
        model: 'image-fast',
        output_url: null,
        output_urls: null,
        credits_used: 0,
        duration_ms: 10,
        created_at: now,
        completed_at: now,
        request_id: 'req_t',
        error: { code: `MODEL_ERROR${FORGED}`, message: 'it broke', retryable: false },
      });
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'NOT_FOUND', message: 'no such route', next: 'none', request_id: 'req_t' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const run = (args: string[]) => runCli(args, { baseUrl: base, env: { FORCE_COLOR: '1' } });

describe('the service’s terminal sequences are shown, never acted on (built bin, colour on)', () => {
  it('credits: a tier carrying hidden-text SGR (ESC[8m) is printed escaped; the CLI’s own colour stays', async () => {
    const { code, stdout, stderr } = await run(['credits']);
    expect(code, stderr).toBe(0);
    expect(stdout).not.toContain('\x1b[8m');
    expect(stdout).toMatch(/tier\s+pro\uFFFD\[8m secret/);
    // The request line is the CLI's own dim text: its styling is written.
    expect(stderr).toContain('\x1b[2mrequest req_t\x1b[22m');
  });

  it('get: an error code carrying `\\r ESC[2K` and a forged line cannot erase the real line', async () => {
    const { code, stdout, stderr } = await run(['get', ID]);
    expect(code, stderr).toBe(0);
    expect(stdout).not.toContain('\r');
    expect(stdout).not.toContain('\x1b[2K');
    expect(stdout).toContain('MODEL_ERROR\uFFFD\uFFFD[2K done: saved 1 file (all good): it broke');
  });

  it('models --json: C1 and bidi controls are \\u escapes; the document parses back to the list as sent', async () => {
    const { code, stdout, stderr } = await run(['models', '--json']);
    expect(code, stderr).toBe(0);
    expect(stdout).not.toMatch(STEERING);
    expect(stdout).toContain('image-\\u009b31mfast');
    expect(JSON.parse(stdout)).toEqual(LIST);
  });

  it('models: the table shows each control as U+FFFD; only the CLI’s own colours are written', async () => {
    const { code, stdout, stderr } = await run(['models']);
    expect(code, stderr).toBe(0);
    expect((stdout + stderr).replace(OWN_SGR, '')).not.toMatch(STEERING);
    expect(stdout).toContain('image-\uFFFD31mfast');
  });
});

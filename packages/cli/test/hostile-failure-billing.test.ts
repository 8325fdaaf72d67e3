/**
 * What the CLI says a failed generation cost, and whether it says to resubmit, when the
 * service's failed generation is malformed: it never claims a refund it was not told of, and
 * never advises a resubmit (a second charge) the service did not say may succeed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Generation } from '@mediagen/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { failureCharge } from '../src/format';
import { runCli } from './helpers';

const failed = (credits_used: unknown, code = 'model_unavailable') =>
  ({ generation_id: 'g1', status: 'failed', credits_used, error: { code, message: 'x', retryable: false } }) as unknown as Generation;

describe('failureCharge: "refunded" only when the service says 0 credits were kept', () => {
  it('any credits_used that is not a whole number >= 0 (missing, null, text, negative, NaN-like) claims no refund', () => {
    const notACount = fc.anything().filter((v) => !(typeof v === 'number' && Number.isInteger(v) && v >= 0));
    fc.assert(
      fc.property(notACount, (value) => {
        const said = failureCharge(failed(value));
        expect(said).not.toMatch(/refunded/);
        expect(said).not.toMatch(/^0 credits/);
      }),
    );
    expect(failureCharge(failed(undefined))).not.toMatch(/refunded/);
    expect(failureCharge(failed('abc'))).not.toMatch(/refunded/);
    expect(failureCharge(failed(-3))).not.toMatch(/refunded/);
  });

  it('a whole number keeps its meaning: 0 refunded, more charged, a policy flag forfeited', () => {
    expect(failureCharge(failed(0))).toBe('0 credits charged (refunded)');
    expect(failureCharge(failed(7))).toBe('7 credits charged');
    expect(failureCharge(failed(4, 'CONTENT_POLICY_VIOLATION'))).toBe('4 credits forfeited (flagged by safety review)');
  });
});

const ID = '5a1e0c2d-7b3f-4e8a-9c6d-1f2e3d4c5b6a';
let server: Server | undefined;
const portOf = (s: Server | undefined) => (s?.address() as AddressInfo | null | undefined)?.port;
afterEach(async () => {
  const s = server;
  server = undefined;
  if (!s) return;
  s.closeAllConnections();
  await new Promise((resolve) => s.close(resolve));
});

/** A service whose one generation failed with the given `error` and `credits_used`. */
async function failedService(error: unknown, credits_used: unknown): Promise<string> {
  server = createServer((req, res) => {
    res.writeHead(req.url?.startsWith(`/api/v1/generations/${ID}`) || req.url?.startsWith('/api/v1/models') ? 200 : 404, {
      'content-type': 'application/json',
      'x-request-id': 'req_hostile',
    });
    if (req.url?.startsWith('/api/v1/models')) return res.end(JSON.stringify({ models: [], request_id: 'req_hostile' }));
    const now = new Date().toISOString();
    res.end(
      JSON.stringify({
        generation_id: ID,
        status: 'failed',
        model: 'image-fast',
        output_url: null,
        output_urls: null,
        credits_used,
        duration_ms: 5,
        created_at: now,
        completed_at: now,
        request_id: 'req_hostile',
        error,
      }),
    );
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${portOf(server)}`;
}

describe('wait <id> on a malformed failed generation', () => {
  it('retryable "false" (a string) is not "may succeed": no advice to submit again (another charge)', async () => {
    const base = await failedService({ code: 'model_unavailable', message: 'down', retryable: 'false' }, 0);
    const { code, stderr } = await runCli(['wait', ID], { baseUrl: base });
    expect(code).toBe(7);
    expect(stderr).not.toMatch(/To try again/);
    expect(stderr).not.toMatch(/May succeed if resubmitted/);
  });

  it('credits_used missing: the failure line does not say the credits were refunded', async () => {
    const base = await failedService({ code: 'model_unavailable', message: 'down', retryable: false }, undefined);
    const { code, stderr } = await runCli(['wait', ID], { baseUrl: base });
    expect(code).toBe(7);
    expect(stderr).toMatch(/^failed after/m);
    expect(stderr).not.toMatch(/refunded/);
  });

  it('get <id> shows the same: no refund claimed without credits_used', async () => {
    const base = await failedService({ code: 'model_unavailable', message: 'down', retryable: false }, null);
    const { code, stdout } = await runCli(['get', ID], { baseUrl: base });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^credits/m);
    expect(stdout).not.toMatch(/refunded/);
  });
});

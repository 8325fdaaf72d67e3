/**
 * A service that lists 10,000 output links for a request of one image (issue 30, finding 9): the
 * CLI downloads what was asked (`number_results`, else the model's default; for `wait <id>`, the
 * most the model takes), never one request and one file per listed link, and each download takes
 * its abort listener off the command's signal when it ends, however it ends.
 */
import { getEventListeners } from 'node:events';
import { readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Generation, MediaGenClient } from '@mediagen/core';
import { NUMBER_RESULTS_MAX } from '@mediagen/core/wire';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { downloadOutputs } from '../src/download';
import { KEYS, runCli, tempDir } from './helpers';

const ID = '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const EXPIRY = 4_102_444_800; // 2100-01-01: never near expiry, so no refresh read.
const LISTED = 10_000;
const MODEL = {
  slug: 'image-one',
  kind: 'image',
  modes: ['text-to-image'],
  params: { prompt: { type: 'string', required: true }, number_results: { type: 'number', required: false, max: 4, default: 1 } },
  credits_band: { min: 4, max: 16, flat: false },
};

let server: Server;
let base: string;
/** Requests for output links since the last reset. */
let outputRequests = 0;
/** How the output links answer. */
let outputStatus = 200;

const links = () => Array.from({ length: LISTED }, (_, i) => `${base}/api/v1/output/${ID}/${EXPIRY}/sig/${i}/image-${i}.png`);
const completed = (): Generation => {
  const urls = links();
  const now = new Date().toISOString();
  return {
    generation_id: ID,
    status: 'completed',
    model: MODEL.slug,
    output_url: urls[0]!,
    output_urls: urls,
    credits_used: 4,
    duration_ms: 10,
    created_at: now,
    completed_at: now,
    request_id: 'req_many',
  } as Generation;
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const url = req.url ?? '';
    req.resume();
    if (url.startsWith('/api/v1/models'))
      return json(200, {
        tier: 'pro',
        credits_balance: 100,
        rate_limit: { per_minute: 60, max_concurrent: 4 },
        models: [MODEL],
        request_id: 'req_m',
      });
    if (url.startsWith('/api/v1/generate') && req.method === 'POST')
      return json(202, { generation_id: ID, status: 'pending', credits_estimate: 4, request_id: 'req_s' });
    if (url.startsWith(`/api/v1/generations/${ID}`)) return json(200, completed());
    if (url.startsWith('/api/v1/output/')) {
      outputRequests++;
      if (outputStatus !== 200) return json(outputStatus, { error: 'NOT_FOUND', message: 'gone', next: 'none', request_id: 'req_o' });
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(`output-${url.split('/')[7]}`);
    }
    json(404, { error: 'NOT_FOUND', message: 'no such route', next: 'none', request_id: 'req_x' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  outputRequests = 0;
  outputStatus = 200;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe(`a completed generation listing ${LISTED} links (built bin)`, () => {
  it.each([
    [
      'generate --wait, number_results not given: the model’s default, one',
      ['generate', '--model', 'image-one', '--prompt', 'p', '--wait'],
      1,
    ],
    [
      'generate --wait --param number_results=3: three',
      ['generate', '--model', 'image-one', '--prompt', 'p', '--param', 'number_results=3', '--wait'],
      3,
    ],
    ['wait <id>, the params unknown: the most the model takes', ['wait', ID], 4],
  ])(
    '%s',
    async (_, args, asked) => {
      const out = await tempDir('many');
      const { code, stdout, stderr } = await runCli([...args, '--out', out], { baseUrl: base });
      expect(code, stderr).toBe(0);
      expect(outputRequests).toBe(asked);
      expect((await readdir(out)).sort()).toEqual(Array.from({ length: asked }, (_, i) => `${ID}-image-${i}.png`).sort());
      expect(stdout.trim().split('\n')).toHaveLength(asked + 1);
      expect(stderr).toContain(`listed ${LISTED - asked} more output link(s) than the ${asked} asked for: not downloaded`);
      expect(stderr).not.toMatch(/MaxListenersExceeded|Warning/);
    },
    60_000,
  );
});

describe('downloadOutputs: bounded, and each abort listener freed', () => {
  const client = () => new MediaGenClient({ apiKey: KEYS.main, baseUrl: base, maxRetries: 0 });

  it(`at most the limit of ${LISTED} listed links; no MaxListenersExceededWarning; the signal's listeners back to where they were`, async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const signal = new AbortController().signal;
      const before = getEventListeners(signal, 'abort').length;
      const out = await tempDir('bounded');
      const { files, skipped } = await downloadOutputs(client(), completed(), out, { limit: NUMBER_RESULTS_MAX, signal });
      expect(files).toHaveLength(NUMBER_RESULTS_MAX);
      expect(skipped).toBe(LISTED - NUMBER_RESULTS_MAX);
      expect(outputRequests).toBe(NUMBER_RESULTS_MAX);
      expect(await readdir(out)).toHaveLength(NUMBER_RESULTS_MAX);
      expect(getEventListeners(signal, 'abort')).toHaveLength(before);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a download that fails frees its listener too', async () => {
    outputStatus = 404;
    const signal = new AbortController().signal;
    const before = getEventListeners(signal, 'abort').length;
    await expect(downloadOutputs(client(), completed(), await tempDir('refused'), { limit: 1, signal })).rejects.toMatchObject({
      status: 404,
    });
    expect(getEventListeners(signal, 'abort')).toHaveLength(before);
  });

  it('every download of a long run frees its listener (limit lifted to the whole list)', async () => {
    const signal = new AbortController().signal;
    const before = getEventListeners(signal, 'abort').length;
    const many = 40;
    const generation = { ...completed(), output_urls: links().slice(0, many) };
    const { files } = await downloadOutputs(client(), generation, await tempDir('long-run'), { limit: many, signal });
    expect(files).toHaveLength(many);
    expect(getEventListeners(signal, 'abort')).toHaveLength(before);
  });
});

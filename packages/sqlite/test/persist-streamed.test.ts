/**
 * `persistOutputs` streams each output from its link to a real `FileOutputSink`: memory stays
 * flat whatever the output's size (a 300 MB output once took a server from 77 MB to ~1 GB), and
 * an output past `maxOutputBytes` is refused, typed, with no file left behind. A real HTTP
 * server on a free port serves the output, generated on the fly and written only as fast as the
 * client reads it. No assertion depends on time.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type Generation, MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, type LedgerGeneration, MemoryGenerationStore } from '@mediagen/core/ledger';
import { afterEach, describe, expect, it } from 'vitest';
import { FileOutputSink } from '../src/index';

// A full collection before each memory sample: what is measured is what is still held, not
// garbage a collector has yet to reach.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MiB = 1024 * 1024;
const ID = '3f1c2a52-9d0e-4a53-a0b5-3e1f0f7b2c11';
const LINK_PATH = `/api/v1/output/${ID}/4102444800/c2ln/0/big.bin`;

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Serves `size` bytes at the link path, in 1 MiB writes that wait for the socket to drain; samples memory every `sampleEvery` bytes. */
async function outputServer(size: number, sampleEvery = 8 * MiB) {
  const chunk = Buffer.alloc(MiB, 7);
  const samples: NodeJS.MemoryUsage[] = [];
  const server: Server = createServer((req, res) => {
    if (req.url !== LINK_PATH) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'NOT_FOUND', message: 'no', next: 'none', request_id: 'req_1' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) });
    let sent = 0;
    const more = () => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(MiB, size - sent));
        sent += piece.byteLength;
        if (sent % sampleEvery === 0) {
          gc();
          samples.push(process.memoryUsage());
        }
        if (!res.write(piece)) return;
      }
      res.end();
    };
    res.on('drain', more);
    res.on('close', () => res.off('drain', more));
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, samples };
}

/** A ledger on the server persisting into a fresh directory; `complete()` hands it the completed generation. */
function ledgerOn(baseUrl: string, maxOutputBytes?: number) {
  const directory = mkdtempSync(join(tmpdir(), 'mediagen-persist-'));
  closers.push(() => rmSync(directory, { recursive: true, force: true }));
  const handed: LedgerGeneration[] = [];
  const errors: unknown[] = [];
  const ledger = createGenerationLedger({
    client: new MediaGenClient({ apiKey: 'svc_live_persist_streamed', baseUrl, maxRetries: 0 }),
    store: new MemoryGenerationStore(),
    persistOutputs: new FileOutputSink({ directory, baseUrl: '/outputs' }),
    ...(maxOutputBytes === undefined ? {} : { maxOutputBytes }),
    onTerminal: (g) => void handed.push(g),
    onError: (e) => void errors.push(e),
  });
  const link = `${baseUrl}${LINK_PATH}`;
  const complete = async () => {
    const at = new Date().toISOString();
    await ledger.adopt(
      'alice',
      {
        generation_id: ID,
        status: 'pending',
        model: 'video-standard',
        credits_estimate: 4,
        pricing_source: 'catalog_default',
        created_at: at,
        request_id: 'req_persist',
      },
      { model: 'video-standard', prompt: 'big' },
    );
    const generation = {
      generation_id: ID,
      status: 'completed',
      model: 'video-standard',
      output_url: link,
      output_urls: [link],
      credits_used: 4,
      duration_ms: 1,
      created_at: at,
      completed_at: at,
    } as Generation;
    await ledger.apply(generation);
  };
  /** Every file under the directory, temporary ones included. */
  const files = () => readdirSync(directory, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
  return { ledger, directory, handed, errors, complete, files };
}

describe('persistOutputs: streamed, bounded', () => {
  it('a 256 MiB output reaches the file with memory growth far below its size', async () => {
    const size = 256 * MiB;
    const server = await outputServer(size);
    const l = ledgerOn(server.url);
    gc();
    const before = process.memoryUsage();
    await l.complete();

    expect(l.errors).toEqual([]);
    expect(l.handed).toHaveLength(1);
    const saved = join(l.directory, ID, '0-big.bin');
    expect(l.handed[0]?.output_urls).toEqual([`/outputs/${ID}/0-big.bin`]);
    expect(statSync(saved).size).toBe(size);
    expect(l.files()).toHaveLength(1); // no temporary file left beside it
    // Sampled while the body was being sent (32 times): held whole, it would be 256 MiB and more.
    expect(server.samples.length).toBe(size / (8 * MiB));
    const growth = (key: 'arrayBuffers' | 'rss') => Math.max(...server.samples.map((s) => s[key])) - before[key];
    expect(growth('arrayBuffers')).toBeLessThan(64 * MiB);
    expect(growth('rss')).toBeLessThan(128 * MiB);
  }, 120_000);

  it('an output past maxOutputBytes: the download is aborted, OutputTooLargeError, and no file (not even a temporary one)', async () => {
    const server = await outputServer(64 * MiB);
    const l = ledgerOn(server.url, 4 * MiB);
    await l.complete();

    // No later pass can change it: reported once, and handed over with the service's links (no copy).
    expect(l.handed).toHaveLength(1);
    expect(l.handed[0]?.output_url).toContain('/api/v1/output/');
    expect(l.errors).toHaveLength(1);
    expect(l.errors[0]).toMatchObject({ name: 'OutputTooLargeError', code: 'OUTPUT_TOO_LARGE', retryable: false, generationId: ID });
    expect((l.errors[0] as Error).message).toContain('maxOutputBytes (4194304 bytes)');
    expect(l.files()).toEqual([]);
    expect(existsSync(join(l.directory, ID, '0-big.bin'))).toBe(false);
    // The server was hung up on: far less than the whole body was sent.
    expect(server.samples.length).toBeLessThan(64 / 8);
  }, 60_000);
});

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import { outputName } from '@mediagen/core/internal';
import { createGenerationLedger } from '@mediagen/core/ledger';
import { startEmulator } from '@mediagen/emulator';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FileOutputSink, SqliteGenerationStore } from '../src/index';

const directory = mkdtempSync(join(tmpdir(), 'mediagen-sqlite-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const KEY = 'svc_live_sqlite';

describe('SqliteGenerationStore', () => {
  it("creates the file's folder: `data/generations.db` works in a fresh checkout", async () => {
    const filename = join(directory, 'fresh', 'data', 'generations.db');
    const store = new SqliteGenerationStore({ filename });
    try {
      expect(await store.get('nothing')).toBeUndefined();
      expect(statSync(filename).isFile()).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('a row committed before SIGKILL is there when the file is opened again', async () => {
    const filename = join(directory, 'killed.db');
    for (let run = 0; run < 3; run++) {
      const child = spawn(process.execPath, [new URL('./support/commit-then-wait.mjs', import.meta.url).pathname, filename, `k${run}`], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => resolve(chunk.toString()));
        child.once('exit', (code) => reject(new Error(`child exited ${code} before committing`)));
      });
      expect(line).toMatch(/^committed (libsql|node:sqlite)/);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    const store = new SqliteGenerationStore({ filename });
    for (let run = 0; run < 3; run++) {
      expect(await store.get(`k${run}`)).toMatchObject({ status: 'pending', generation_id: `gen-k${run}`, version: 1 });
    }
    await store.close();
  });

  it('a ledger that died after the service billed its submit: a new process on the same file finishes it, billed once', async () => {
    const emulator = await startEmulator({
      port: 0,
      config: { timeScale: 0.001, accounts: [{ id: 'acct_sqlite', tier: 'pro', balance: 1_000, keys: [{ key: KEY }] }] },
    });
    try {
      const filename = join(directory, 'restart.db');
      const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0 });
      await fetch(`${emulator.url}/__emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint: 'generate', status: 500, when: 'after' }),
      });
      const first = new SqliteGenerationStore({ filename });
      await createGenerationLedger({ client, store: first })
        .submit('alice', { model: 'image-fast', prompt: 'survives' }, { idempotencyKey: 'restart-1' })
        .catch(() => {});
      await first.close();
      // The "restarted" app: a new store on the file, a new ledger, its clock past the lease.
      const handed: string[] = [];
      let now = Date.now() + 120_000;
      const ledger = createGenerationLedger({
        client,
        store: new SqliteGenerationStore({ filename }),
        now: () => now,
        onTerminal: (g) => void handed.push(`${g.generation_id}:${g.status}`),
      });
      for (let i = 0; i < 500 && handed.length === 0; i++) {
        now += 2_000;
        await ledger.reconcile();
        if (handed.length === 0) await new Promise((r) => setImmediate(r));
      }
      const account = (await (await fetch(`${emulator.url}/__emulator/accounts/acct_sqlite`)).json()) as {
        ledger: { type: string; generation_id: string }[];
      };
      const reserves = account.ledger.filter((l) => l.type === 'reserve').map((l) => l.generation_id);
      expect(reserves).toHaveLength(1);
      expect(handed).toEqual([`${reserves[0]}:completed`]);
    } finally {
      await emulator.close();
    }
  });
});

/** Bytes as the stream a sink is given. */
const streamOf = (bytes: Uint8Array<ArrayBuffer>) => new Response(bytes).body as ReadableStream<Uint8Array>;

describe('FileOutputSink', () => {
  it('writes each output under the directory and answers its URL', async () => {
    const sink = new FileOutputSink({ directory: join(directory, 'out'), baseUrl: '/outputs/' });
    const url = await sink.put('gen-1/0-a b.png', streamOf(new Uint8Array([1, 2, 3])), {
      generationId: 'gen-1',
      index: 0,
      contentType: null,
    });
    expect(url).toBe('/outputs/gen-1/0-a%20b.png');
    expect([...readFileSync(join(directory, 'out', 'gen-1', '0-a b.png'))]).toEqual([1, 2, 3]);
    await expect(
      sink.put('../escape.png', streamOf(new Uint8Array(1)), { generationId: 'x', index: 0, contentType: null }),
    ).rejects.toThrow(/outside the directory/);
  });

  it('names the ledger makes from hostile ids and links always land inside the directory', async () => {
    const root = join(directory, 'hostile');
    const sink = new FileOutputSink({ directory: root, baseUrl: '/o' });
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.nat(3), fc.string(), async (id, index, filename) => {
        const link = `https://x.test/api/v1/output/${encodeURIComponent(id || 'g')}/9999999999/sig/${index}/${encodeURIComponent(filename || 'f')}`;
        const name = outputName(id, index, link);
        expect(name.split('/')).toHaveLength(2);
        const url = await sink.put(name, streamOf(new Uint8Array(1)), { generationId: id, index, contentType: null });
        expect(url.startsWith('/o/')).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

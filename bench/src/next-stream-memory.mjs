// Memory per open event stream on the Next sample (`next start` of apps/next-sample, built
// first), against a real emulator. Not part of `pnpm bench`: run by hand after `next build`,
//   node bench/src/next-stream-memory.mjs [streams=300]
// Two rounds on one fresh server: (1) `streams` streams from ONE cookie to one held generation
// (the issue-30 probe; with the per-user cap most are refused); (2) up to `streams` streams
// spread over users, 8 each (the per-user cap), each user streaming its own held generation:
// the cost of a legitimate stream. Memory = next-server's heap + buffers after three full GCs
// (a preload, child/mem-probe.cjs), and its RSS, before and after each round.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '@mediagen/emulator';

const N = Number(process.argv[2] ?? 300);
const APP = fileURLToPath(new URL('../../apps/next-sample/', import.meta.url));
const KEY = 'svc_live_next_mem';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = s.address();
    s.close(() => resolve(free));
  });
});
if (!existsSync(join(APP, '.next', 'BUILD_ID'))) throw new Error('Build the sample first (next build in apps/next-sample).');

const emulator = await startEmulator({
  port: 0,
  config: { timeScale: 0.05, accounts: [{ id: 'acct_mem', tier: 'ultimate', balance: 1_000_000, keys: [{ key: KEY }] }] },
});
const dir = mkdtempSync(join(tmpdir(), 'next-mem-'));
const child = spawn(
  process.execPath,
  [join(APP, 'node_modules/next/dist/bin/next'), 'start', '--port', String(port), '--hostname', '127.0.0.1'],
  {
    cwd: APP,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      NODE_OPTIONS: `--expose-gc --require ${fileURLToPath(new URL('./child/mem-probe.cjs', import.meta.url))}`,
      MEMPROBE_DIR: dir,
      MEDIAGEN_API_KEY: KEY,
      MEDIAGEN_BASE_URL: emulator.url,
      MEDIAGEN_WEBHOOK_SECRET: 'whsec_next_mem',
      MEDIAGEN_SAMPLE_DB: join(dir, 'generations.db'),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  },
);
const origin = `http://127.0.0.1:${port}`;
try {
  for (;;) {
    try {
      if ((await fetch(`${origin}/api/credits`)).status < 500) break;
    } catch {}
    await sleep(200);
  }
  /** The next-server process: the one of those preloaded that serves (the largest RSS). */
  const pids = readdirSync(dir)
    .filter((f) => f.endsWith('.alive'))
    .map((f) => Number(f.slice(0, -6)));
  const mem = async () => {
    const results = [];
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGUSR2');
      } catch {
        continue;
      }
      const file = join(dir, `${pid}.json`);
      const since = Date.now();
      for (;;) {
        await sleep(100);
        if (existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).at >= since) break;
      }
      results.push(JSON.parse(readFileSync(file, 'utf8')).mem);
    }
    return results.sort((a, b) => b.rss - a.rss)[0];
  };
  const newUser = async () => {
    const res = await fetch(`${origin}/api/credits`);
    return res.headers.get('set-cookie').split(';')[0];
  };
  const held = async (cookie) => {
    const before = (await emulator.faults.held()).length;
    const res = await fetch(`${origin}/api/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ model: 'image-fast', prompt: '[[hold]] memory' }),
    });
    if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
    await emulator.faults.held({ min: before + 1 });
    return (await res.json()).generation_id;
  };
  /** Opens one stream; resolves with its status once its first event came (or its refusal). */
  const open = (path, cookie) =>
    new Promise((resolve, reject) => {
      const req = request(`${origin}${path}`, { agent: false, headers: { cookie, accept: 'text/event-stream' } }, (res) => {
        res.on('error', () => {});
        if (res.statusCode !== 200) {
          res.resume();
          return resolve({ status: res.statusCode, close: () => req.destroy() });
        }
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
          if (text.includes('data:')) resolve({ status: 200, close: () => req.destroy() });
        });
      });
      req.on('error', reject);
      req.end();
    });
  const round = async (label, plan) => {
    const before = await mem();
    const streams = [];
    for (let i = 0; i < plan.length; i += 50)
      streams.push(...(await Promise.all(plan.slice(i, i + 50).map(([path, cookie]) => open(path, cookie)))));
    const after = await mem();
    const opened = streams.filter((s) => s.status === 200).length;
    const per = (k) => ((after[k] - before[k]) / Math.max(opened, 1) / 1024).toFixed(1);
    const heapBuf = (
      (after.heapUsed + after.external + after.arrayBuffers - before.heapUsed - before.external - before.arrayBuffers) /
      Math.max(opened, 1) /
      1024
    ).toFixed(1);
    console.log(
      `${label}: ${plan.length} asked, ${opened} open, ${plan.length - opened} refused (${[...new Set(streams.map((s) => s.status))].join('/')}); ` +
        `heap+buffers +${heapBuf} KB per open stream; RSS ${(before.rss / 2 ** 20).toFixed(0)} -> ${(after.rss / 2 ** 20).toFixed(0)} MB (+${per('rss')} KB per open stream)`,
    );
    for (const s of streams) s.close();
    await sleep(1_000);
  };
  // Warm-up: the routes compiled and run once.
  const warmUser = await newUser();
  const warmId = await held(warmUser);
  await round(
    'warm-up',
    Array.from({ length: 8 }, () => [`/api/generations/${warmId}/events`, warmUser]),
  );
  const one = await newUser();
  const id = await held(one);
  await round(
    `one cookie`,
    Array.from({ length: N }, () => [`/api/generations/${id}/events`, one]),
  );
  const users = [];
  for (let i = 0; i < Math.min(Math.ceil(N / 8), 18); i++) {
    const cookie = await newUser();
    users.push([cookie, await held(cookie)]);
  }
  await round(
    `${users.length} users x 8`,
    users.flatMap(([cookie, gid]) => Array.from({ length: 8 }, () => [`/api/generations/${gid}/events`, cookie])),
  );
} finally {
  child.kill('SIGTERM');
  await emulator.faults.release(1_000).catch(() => {});
  await emulator.close();
  await sleep(500);
  rmSync(dir, { recursive: true, force: true });
}

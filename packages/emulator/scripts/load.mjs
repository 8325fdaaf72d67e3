#!/usr/bin/env node
// Load measurement for @mediagen/emulator, run from a second process with autocannon.
// Usage: node scripts/load.mjs [--submits 200] [--reads 5000] [--seconds 10] [--generations 10000]
// Also importable: `import { runLoad } from '@mediagen/emulator/scripts/load.mjs'` style reuse
// by a benchmark package (it only needs the built dist/cli.js and autocannon).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const here = dirname(fileURLToPath(import.meta.url));
export const CLI = join(here, '..', 'dist', 'cli.js');

/** Enough ultimate accounts that 200 submits/s stay under each one's 600/min and 20 in flight. */
export function loadConfig(accounts = 40) {
  return {
    timeScale: 0.0001,
    accounts: Array.from({ length: accounts }, (_, i) => ({
      id: `acct_load_${i}`,
      tier: 'ultimate',
      balance: 1_000_000,
      keys: [{ key: `svc_live_load_${i}` }],
    })),
  };
}

/** Starts the emulator CLI in a child process; resolves with its URL. */
export function spawnEmulator(config, cli = CLI) {
  const dir = mkdtempSync(join(tmpdir(), 'mediagen-load-'));
  const file = join(dir, 'emulator.json');
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, [cli, '--port', '0', '--config', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1], child, stop: () => child.kill('SIGTERM') });
    });
  });
}

const run = (opts) =>
  new Promise((resolve, reject) => {
    const inst = autocannon(opts, (err, res) => (err ? reject(err) : resolve(res)));
    autocannon.track(inst, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });

const summary = (r) => ({
  requests: r.requests.total,
  rps_avg: Math.round(r.requests.average),
  latency_ms_p50: r.latency.p50,
  latency_ms_p99: r.latency.p99,
  non2xx: r.non2xx,
  errors: r.errors,
  timeouts: r.timeouts,
});

/** Runs the three measurements; returns the figures. */
export async function runLoad({ submits = 200, reads = 5000, seconds = 10, generations = 10_000, accounts = 40, cli = CLI } = {}) {
  const cfg = loadConfig(accounts);
  const emu = await spawnEmulator(cfg, cli);
  try {
    const created = [];
    let n = 0;
    const submitRequest = {
      method: 'POST',
      path: '/api/v1/generate',
      setupRequest: (req, context) => {
        const i = n++ % accounts;
        context.key = `svc_live_load_${i}`;
        return {
          ...req,
          headers: { 'content-type': 'application/json', authorization: `Bearer svc_live_load_${i}` },
          body: JSON.stringify({ model: 'image-fast', prompt: `load test ${i}`, seed: n }),
        };
      },
      onResponse: (status, body, context) => {
        if (status === 202) created.push([JSON.parse(body).generation_id, context.key]);
      },
    };
    // 1. submits at a fixed rate
    const submitRes = await run({ url: emu.url, connections: 20, overallRate: submits, duration: seconds, requests: [submitRequest] });

    // 2. status reads at a fixed rate, over the generations just created (owner's key)
    let r = 0;
    const ids = created.slice();
    const readRes = await run({
      url: emu.url,
      connections: 50,
      overallRate: reads,
      duration: seconds,
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => {
            const [id, key] = ids[r++ % ids.length];
            return { ...req, path: `/api/v1/generations/${id}`, headers: { authorization: `Bearer ${key}` } };
          },
        },
      ],
    });

    // 3. top up to `generations` tracked records, then read the emulator's memory
    const missing = Math.max(0, generations - created.length);
    if (missing > 0) {
      await run({ url: emu.url, connections: 20, amount: missing, overallRate: 550, requests: [submitRequest] });
    }
    const health = await (await fetch(`${emu.url}/__emulator/health`)).json();
    return {
      machine: { cpus: cpus().length, node: process.version },
      submits: { target_rps: submits, seconds, ...summary(submitRes) },
      status_reads: { target_rps: reads, seconds, ...summary(readRes) },
      memory: {
        tracked_generations: health.generations,
        rss_mb: Math.round((health.memory.rss / 1048576) * 10) / 10,
        heap_used_mb: Math.round((health.memory.heap_used / 1048576) * 10) / 10,
      },
    };
  } finally {
    emu.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({
    options: { submits: { type: 'string' }, reads: { type: 'string' }, seconds: { type: 'string' }, generations: { type: 'string' } },
  });
  const figures = await runLoad({
    submits: Number(values.submits ?? 200),
    reads: Number(values.reads ?? 5000),
    seconds: Number(values.seconds ?? 10),
    generations: Number(values.generations ?? 10_000),
  });
  console.log(JSON.stringify(figures, null, 2));
}

import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { judgeHonoApp } from './hono-check.js';
import { judgeServedReceiver } from './receiver-check.js';
import { cleanEnv } from './run-process.js';

const ENTRY = fileURLToPath(new URL('./entry-worker.js', import.meta.url));
const HONO_ENTRY = fileURLToPath(new URL('./entry-hono-worker.js', import.meta.url));
const HANG_MS = 240_000;
/** A date this workerd release supports (its defaults turn Node's APIs on; cells.js says which cell turns them off). */
const COMPATIBILITY_DATE = '2026-11-01';

/**
 * workerd's own config: the bundle as an ES module Worker with the cell's compatibility flags
 * (none: a `node:` import fails to load, as on a plain Worker), listening on the receiver's port
 * (workerd reports on fd 3 once it listens), with outbound fetch allowed to loopback, where the
 * emulator is, the webhook secret as a text binding and the cell's environment as JSON (the Hono
 * app's `MATRIX_ENV`).
 */
const config = (flags, port, secret, env) => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .matrixWorker),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const matrixWorker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "${COMPATIBILITY_DATE}",
  compatibilityFlags = ${JSON.stringify(flags)},
  globalOutbound = "loopback",
  bindings = [
    (name = "MEDIAGEN_WEBHOOK_SECRET", text = ${JSON.stringify(secret)}),
    (name = "MATRIX_ENV", text = ${JSON.stringify(JSON.stringify(env))}),
  ],
);
`;

/** Bundles the scenario as wrangler does (its conditions, its `node:` handling), serves it with workerd, runs it once. */
export async function runWorkerdCell(cell, binary, harness) {
  const dir = await mkdtemp(join(tmpdir(), 'mediagen-workerd-'));
  try {
    await build({
      entryPoints: [cell.hono ? HONO_ENTRY : ENTRY],
      outfile: join(dir, 'worker.js'),
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser', 'import'],
      mainFields: ['module', 'main'],
      // As wrangler bundles: with Node's APIs on, `node:` imports are left to workerd; without, they fail the build.
      external: cell.flags.some((flag) => flag.startsWith('no_nodejs_compat')) ? [] : ['node:*'],
      target: 'es2022',
      logLevel: 'silent',
    });
    await writeFile(join(dir, 'config.capnp'), config(cell.flags, harness.env.receiverPort, harness.env.webhookSecret, harness.env));
    return await serveOnce(cell, binary, dir, harness);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function serveOnce(cell, binary, dir, harness) {
  return new Promise((resolve) => {
    const child = spawn(binary, ['serve', join(dir, 'config.capnp'), '--control-fd=3'], {
      cwd: dir,
      env: cleanEnv(),
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let control = '';
    let asked = false;
    let results = [];
    child.stderr.setEncoding('utf8').on('data', (s) => {
      stderr += s;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
    // workerd writes one JSON line per event on the control fd: `{"event":"listen","socket":"http","port":N}`.
    child.stdio[3].setEncoding('utf8').on('data', (s) => {
      control += s;
      const listen = control
        .split('\n')
        .filter((line) => line.trim().startsWith('{'))
        .map((line) => JSON.parse(line))
        .find((e) => e.event === 'listen' && e.socket === 'http');
      if (!listen || asked) return;
      asked = true;
      // A Hono cell's Worker is the Hono app only: all its checks are judged from outside.
      const run = cell.hono
        ? judgeHonoApp(`http://127.0.0.1:${listen.port}`, harness)
        : ask(listen.port, harness.env).then(async (r) => [...r, await judgeServedReceiver(harness.receiverUrl, harness.env)]);
      run
        .then((r) => {
          results = r;
        })
        .catch((error) => {
          stderr += `\n${String(error)}`;
        })
        .finally(() => child.kill('SIGTERM'));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ results, exit: asked ? 0 : (signal ?? code), stderr });
    });
  });
}

async function ask(port, env) {
  const response = await fetch(`http://127.0.0.1:${port}/run`, { method: 'POST', body: JSON.stringify(env) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`worker answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeForNext } from './binaries.js';
import { judgeHonoApp } from './hono-check.js';
import { judgeServedReceiver, until } from './receiver-check.js';
import { cleanEnv } from './run-process.js';

/** Hang guards, not measures: `next build` takes tens of seconds on a loaded two-core machine. */
const BUILD_HANG_MS = 600_000;
const READY_DEADLINE_MS = 120_000;

/**
 * A Next.js cell: `next build` of the fixture app, `next start` on the port the emulator already
 * delivers to, the scenario run inside its edge route, then the framework's webhook route (edge
 * too) judged from outside while the server still runs.
 */
export async function runNextCell(cell, nextBin, harness) {
  const app = fileURLToPath(new URL(`../${cell.fixture}/`, import.meta.url));
  const env = {
    ...cleanEnv(),
    NEXT_TELEMETRY_DISABLED: '1',
    MEDIAGEN_WEBHOOK_SECRET: harness.env.webhookSecret,
    // The Hono fixture's route reads the cell's environment from here (an edge route has no argv).
    MATRIX_ENV: JSON.stringify(harness.env),
  };
  const build = await exec(nodeForNext(), [nextBin, 'build'], { cwd: app, env }, BUILD_HANG_MS);
  if (build.code !== 0) throw new Error(`next build failed (${build.code}): ${build.output.slice(-1500)}`);
  const server = spawn(nodeForNext(), [nextBin, 'start', '--port', String(harness.env.receiverPort), '--hostname', '127.0.0.1'], {
    cwd: app,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  server.stderr.setEncoding('utf8').on('data', (s) => {
    stderr += s;
  });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  try {
    const origin = `http://127.0.0.1:${harness.env.receiverPort}`;
    await until(async () => (await fetch(`${origin}${cell.route}`).catch(() => null)) !== null, READY_DEADLINE_MS, 'next start to answer');
    // Loads the webhook route's edge function before the emulator's first delivery: a cold load on
    // a busy machine must not eat the receiver's 5 s window. Unsigned, so it is refused and handles nothing.
    await fetch(`${origin}${cell.route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    // The Hono fixture is the Hono app alone: every check judged from outside.
    if (cell.hono) return { results: await judgeHonoApp(origin, harness), exit: 0, stderr };
    const response = await fetch(`${origin}/api/scenario`, { method: 'POST', body: JSON.stringify(harness.env) });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`the edge route answered ${response.status}: ${text.slice(0, 800)}`);
    const results = JSON.parse(text);
    results.push(await judgeServedReceiver(harness.receiverUrl, harness.env));
    return { results, exit: 0, stderr };
  } finally {
    server.kill('SIGTERM');
    await exited;
  }
}

function exec(command, args, options, hangMs) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (s) => {
      output += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s) => {
      output += s;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), hangMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: signal ?? code, output });
    });
  });
}

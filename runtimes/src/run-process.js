import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { judgeHonoApp } from './hono-check.js';
import { judgeServedReceiver } from './receiver-check.js';

const ENTRY = fileURLToPath(new URL('./entry-process.js', import.meta.url));
/** A Hono cell's process serves the Hono app only; its checks are all judged from outside. */
const HONO_ENTRY = fileURLToPath(new URL('./entry-hono.js', import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
/** A hang guard, not a measure: a cell normally takes seconds. */
const HANG_MS = 240_000;

/**
 * Runs the scenario (or, for a Hono cell, the Hono app) under `binary` as its own process; once
 * it says READY (still serving), judges what it serves, then ends the process. Resolves to the results and stderr.
 */
export function runProcessCell(cell, binary, harness) {
  return new Promise((resolve) => {
    const child = spawn(binary, [...cell.args, cell.hono ? HONO_ENTRY : ENTRY, JSON.stringify(harness.env)], {
      cwd: PACKAGE_DIR,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let served = null;
    child.stdout.setEncoding('utf8').on('data', (s) => {
      stdout += s;
      if (served || !/^READY$/m.test(stdout)) return;
      const judged = cell.hono
        ? judgeHonoApp(`http://127.0.0.1:${harness.env.receiverPort}`, harness)
        : judgeServedReceiver(harness.receiverUrl, harness.env).then((result) => [result]);
      served = judged.finally(() => child.kill('SIGTERM'));
    });
    child.stderr.setEncoding('utf8').on('data', (s) => {
      stderr += s;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
    child.on('close', async (code, signal) => {
      clearTimeout(timer);
      const results = stdout
        .split('\n')
        .filter((line) => line.startsWith('RESULT '))
        .map((line) => JSON.parse(line.slice('RESULT '.length)));
      if (served) results.push(...(await served));
      resolve({ results, exit: served ? 0 : (signal ?? code), stderr });
    });
  });
}

/** The runner's environment without the SDK's own variables, so no cell reads the developer's settings. */
export function cleanEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MEDIAGEN_')));
}

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./entry-process.js', import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
/** A hang guard, not a measure: a cell normally takes seconds. */
const HANG_MS = 240_000;

/** Runs the scenario under `binary` as its own process; resolves to its results and stderr. */
export function runProcessCell(cell, binary, { env }) {
  return new Promise((resolve) => {
    const child = spawn(binary, [...cell.args, ENTRY, JSON.stringify(env)], {
      cwd: PACKAGE_DIR,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s) => {
      stderr += s;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const results = stdout
        .split('\n')
        .filter((line) => line.startsWith('RESULT '))
        .map((line) => JSON.parse(line.slice('RESULT '.length)));
      resolve({ results, exit: signal ?? code, stderr });
    });
  });
}

/** The runner's environment without the SDK's own variables, so no cell reads the developer's settings. */
export function cleanEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MEDIAGEN_')));
}

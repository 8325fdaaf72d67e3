import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const BINARIES_DIR = fileURLToPath(new URL('../binaries/', import.meta.url));

/**
 * Installs binaries/ (its own lockfile, outside the workspace: its package.json says why). A
 * no-op in under a second once installed; on a new machine it fetches the pinned packages from
 * the registry. Their install runs no script: each binary is a file inside its package.
 */
export async function installBinaries() {
  const args = ['install', '--frozen-lockfile', '--ignore-workspace', '--reporter=silent'];
  // The pnpm running this script when there is one (`pnpm test`, turbo's tasks), else the one on PATH.
  const pnpm = /(^|[/\\])pnpm[^/\\]*$/.test(process.env.npm_execpath ?? '') ? process.env.npm_execpath : 'pnpm';
  const [command, prefix] = /\.[cm]?js$/.test(pnpm) ? [process.execPath, [pnpm]] : [pnpm, []];
  await run(command, [...prefix, ...args], { cwd: BINARIES_DIR });
}

/** The runtimes' packages live in binaries/; Next is this package's own dependency. */
const fromBinaries = createRequire(new URL('../binaries/package.json', import.meta.url));
const fromHere = createRequire(import.meta.url);
const run = promisify(execFile);

/**
 * The cell's binary from its package, or why there is none: the packages are optional, so an
 * install on another platform than linux-x64 skips them and the cell says so instead of failing.
 * @returns {{ path: string } | { unavailable: string }}
 */
export function binaryOf(cell) {
  if (cell.kind === 'next') {
    const node = binaryOf(NODE_FOR_NEXT);
    if ('unavailable' in node) return node;
  }
  const require = cell.kind === 'next' ? fromHere : fromBinaries;
  try {
    return { path: join(dirname(require.resolve(`${cell.pkg}/package.json`)), cell.bin) };
  } catch {
    return { unavailable: `${cell.pkg} is not installed (it ships for linux-x64 only; this is ${process.platform}-${process.arch})` };
  }
}

/** What the binary says its version is (`v22.23.3`, `1.4.5`, `deno 2.9.6 (…)`, `workerd 2026-11-17`); Next's from its package. */
export async function versionOf(cell, path) {
  if (cell.kind === 'next')
    return `${fromHere(`${cell.pkg}/package.json`).version} on Node ${await versionOf(NODE_FOR_NEXT, nodeForNext())}`;
  const { stdout } = await run(path, ['--version']);
  const first = stdout.trim().split('\n')[0] ?? '';
  return first.replace(/^(deno|workerd) /, '').replace(/ \(.*$/, '');
}

/** The Node that builds and serves the Next.js cell: pinned, so the cell is the same whatever Node runs the matrix. */
const NODE_FOR_NEXT = { pkg: 'node-24', bin: 'bin/node' };

export function nodeForNext() {
  const found = binaryOf(NODE_FOR_NEXT);
  if ('unavailable' in found) throw new Error(found.unavailable);
  return found.path;
}

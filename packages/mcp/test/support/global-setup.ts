import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { NODE_22, TOOLS_DIR } from './tools';

/**
 * Installs test/tools (its own lockfile, outside the workspace; its package.json says why): the
 * conformance suite, the Inspector and the Node 22 they need. A no-op in about a second once
 * installed. The bin under test must be built (`turbo` builds it before `test`).
 */
export default async function setup() {
  const pnpm = /(^|[/\\])pnpm[^/\\]*$/.test(process.env.npm_execpath ?? '') ? (process.env.npm_execpath as string) : undefined;
  const args = ['install', '--frozen-lockfile', '--ignore-workspace', '--reporter=silent'];
  const [command, prefix] = pnpm ? (/\.[cm]?js$/.test(pnpm) ? [process.execPath, [pnpm]] : [pnpm, []]) : ['npx', ['-y', 'pnpm@12.21.0']];
  await promisify(execFile)(command, [...prefix, ...args], { cwd: TOOLS_DIR });
  if (!existsSync(NODE_22)) throw new Error(`test/tools did not install Node 22 (${NODE_22}): it ships for linux-x64 only.`);
}

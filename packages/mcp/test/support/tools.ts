import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** test/tools: the conformance suite and the Inspector CLI, with their Node 22 (installed by global-setup.ts). */
export const TOOLS_DIR = fileURLToPath(new URL('../tools/', import.meta.url));
export const NODE_22 = join(TOOLS_DIR, 'node_modules/node-22/bin/node');
const CONFORMANCE = join(TOOLS_DIR, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
// The CLI itself, not its launcher (which would start it with the `node` on PATH, Node 20 here).
const INSPECTOR = join(TOOLS_DIR, 'node_modules/@modelcontextprotocol/inspector/cli/build/index.js');

export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

function run(args: string[], cwd: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(NODE_22, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs the official suite's server scenarios (its active suite) against `url`: each scenario's checks, from the results it writes. */
export async function conformance(url: string): Promise<Map<string, Check[]>> {
  const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  await run([CONFORMANCE, 'server', '--url', url, '-o', out], out);
  const scenarios = new Map<string, Check[]>();
  for (const file of readdirSync(out, { recursive: true }) as string[]) {
    if (!file.endsWith('checks.json')) continue;
    const scenario = file
      .split('/')[0]!
      .replace(/^server-/, '')
      .replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
    scenarios.set(scenario, JSON.parse(readFileSync(join(out, file), 'utf8')) as Check[]);
  }
  return scenarios;
}

/** The Inspector's CLI (what `inspector --cli` runs) against a target: a URL and its headers, or a command and its args (stdio). */
export async function inspector(target: string[], method: string[]) {
  const { code, stdout, stderr } = await run([INSPECTOR, ...target, ...method], tmpdir());
  if (code !== 0) throw new Error(`inspector ${method.join(' ')} exited ${code}: ${stderr.slice(0, 2000)}`);
  return JSON.parse(stdout) as Record<string, any>;
}

import { spawn } from 'node:child_process';
import { copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { CHECK_KEY, startInstalledEmulator } from '../src/emulator';
import { plainPackages, plainProject } from '../src/projects';
import { run, userEnv } from '../src/run';
import { extractSnippets, typecheckSnippets } from '../src/snippets';
import { publishedPackages, ROOT } from '../src/workspace';

// @mediagen/core, the emulator and every other package with no framework peer, installed from
// their tarballs with plain npm into a project outside the workspace, used as a user's app does.
const tarballs = inject('tarballs');
const dir = join(inject('scratch'), 'plain-consumer');
const fixtures = fileURLToPath(new URL('../fixtures/plain/', import.meta.url));

/** The last stdout line of a script that prints its findings as JSON. */
async function runJson(file: string, env: Record<string, string> = {}) {
  const { stdout } = await run(process.execPath, [file], { cwd: dir, env, timeoutMs: 60_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/** A TS consumer that imports every entry of every plain package (generated from their `exports`). */
function entryImports(): string {
  const lines: string[] = [];
  plainPackages().forEach((pkg, i) => {
    for (const subpath of Object.keys((pkg.exports as Record<string, unknown>) ?? { '.': '' })) {
      if (subpath === './package.json') continue;
      const spec = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
      lines.push(`import * as entry_${i}_${lines.length} from '${spec}';`, `console.log(Object.keys(entry_${i}_${lines.length}).length);`);
    }
  });
  return lines.join('\n');
}

const TYPED_USE = `
import { MediaGenClient, MediaGenError, verifyWebhook, type Generation } from '@mediagen/core';
const client = new MediaGenClient({ apiKey: 'svc_live_x', baseUrl: 'http://127.0.0.1:4010' });
export async function latest(id: string): Promise<Generation['status']> {
  try {
    return (await client.generations.get(id)).status;
  } catch (error) {
    if (error instanceof MediaGenError) return 'failed';
    throw error;
  }
}
export const verify = (body: string, signature: string) => verifyWebhook({ body, signature, secrets: ['whsec_x'] });
`;

beforeAll(async () => {
  await plainProject(dir, tarballs);
  for (const file of readdirSync(fixtures)) copyFileSync(join(fixtures, file), join(dir, file));
});

describe('plain Node consumers, installed from the tarballs', () => {
  it('ESM: imports @mediagen/core and runs a generation against the emulator (its JS API)', async () => {
    const result = await runJson('esm.mjs');
    expect(result.status).toBe('completed');
    expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(result.error).toEqual({ name: 'AuthenticationError', isMediaGenError: true, status: 401 });
  });

  it('`npx @mediagen/mcp` from the tarball starts with no configuration (the emulator) and answers a tool call over stdio', async () => {
    const home = join(dir, 'mcp-home');
    // No MEDIAGEN_* at all: the emulator's address and demo key, a ledger under $HOME.
    const env = Object.fromEntries(Object.entries(userEnv({ HOME: home })).filter(([key]) => !key.startsWith('MEDIAGEN_')));
    const child = spawn('npx', ['--no-install', '@mediagen/mcp'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let buffered = '';
    const answers = new Map<number, (value: { result?: unknown; error?: unknown }) => void>();
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        lines.push(line);
        const message = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
        if (message.id !== undefined) answers.get(message.id)?.(message);
      }
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const call = (id: number, method: string, params: unknown) =>
      new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
        answers.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    try {
      const init = await call(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'release-check', version: '1' },
      });
      expect(init.error, stderr).toBeUndefined();
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const credits = (await call(2, 'tools/call', { name: 'credits', arguments: {} })) as {
        result?: { isError?: boolean; content: { type: string; text: string }[] };
      };
      expect(credits.result?.isError ?? false, JSON.stringify(credits) + stderr).toBe(false);
      expect(credits.result?.content.map((c) => c.text).join('')).toMatch(/balance/);
      // Nothing but MCP messages on stdout.
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('CommonJS: requires @mediagen/core and runs a generation against the emulator started from its bin', async () => {
    const emulator = await startInstalledEmulator(dir);
    try {
      const result = await runJson('cjs.cjs', { EMULATOR_URL: emulator.url, MEDIAGEN_API_KEY: CHECK_KEY });
      expect(result.status).toBe('completed');
      expect(result.startEmulator).toBe('function');
      expect(result.error.isMediaGenError).toBe(true);
    } finally {
      await emulator.close();
    }
  });

  it('a bundle of verifyWebhook for a Web-only runtime runs with no Node built-ins', async () => {
    const result = await runJson('edge.mjs');
    expect(result.nodeImports).toEqual([]);
    expect(result.outcome).toEqual({ type: 'generation.completed', id: 'gen_edge', rejected: { verification: true, mediagen: true } });
  });

  it.each(['nodenext', 'bundler'] as const)('TypeScript with moduleResolution %s typechecks every entry', async (resolution) => {
    writeFileSync(join(dir, 'consumer.ts'), `${entryImports()}\n${TYPED_USE}`);
    const files = ['consumer.ts'];
    if (resolution === 'nodenext') {
      // A CommonJS TypeScript file too: it resolves the packages' `require` types (.d.cts).
      writeFileSync(
        join(dir, 'consumer-cjs.cts'),
        `import core = require('@mediagen/core');\nexport const Client: typeof core.MediaGenClient = core.MediaGenClient;\n`,
      );
      files.push('consumer-cjs.cts');
    }
    const compilerOptions =
      resolution === 'nodenext' ? { module: 'nodenext', moduleResolution: 'nodenext' } : { module: 'esnext', moduleResolution: 'bundler' };
    const tsconfig = {
      compilerOptions: { ...compilerOptions, target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] },
      files,
    };
    writeFileSync(join(dir, `tsconfig.${resolution}.json`), JSON.stringify(tsconfig));
    await run(join(dir, 'node_modules/.bin/tsc'), ['-p', `tsconfig.${resolution}.json`, '--pretty', 'false'], {
      cwd: dir,
      timeoutMs: 120_000,
    });
  });

  it("every TypeScript snippet in these packages' READMEs (and the root README) compiles", async () => {
    const readmes = [
      join(ROOT, 'README.md'),
      ...publishedPackages()
        .filter(({ pkg }) => plainPackages().some((plain) => plain.name === pkg.name))
        .map(({ dir: pkgDir }) => join(pkgDir, 'README.md')),
    ];
    const snippets = readmes.flatMap(extractSnippets);
    expect(snippets.length).toBeGreaterThan(0);
    // As users resolve them: Node's own rules, and a bundler's.
    for (const [module, moduleResolution] of [
      ['nodenext', 'nodenext'],
      ['esnext', 'bundler'],
    ]) {
      const errors = await typecheckSnippets(dir, snippets, { module, moduleResolution, target: 'es2022' });
      expect(errors, moduleResolution).toEqual([]);
    }
  });
});

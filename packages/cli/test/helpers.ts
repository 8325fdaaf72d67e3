import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type EmulatorConfig, type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { expect } from 'vitest';

/** The BUILT bin: tests run what users install. */
export const BIN = resolve(import.meta.dirname, '../dist/bin.js');

const secret = () => randomBytes(12).toString('hex');

/** Keys unique to this test process: what every run checks never appears in any output. */
export const KEYS = {
  main: `svc_live_cli_${secret()}`,
  poor: `svc_live_poor_${secret()}`,
  free: `svc_live_free_${secret()}`,
  narrow: `svc_live_narrow_${secret()}`,
  revoked: `svc_live_revoked_${secret()}`,
};

export const ACCOUNT = 'acct_cli_main';

export function testConfig(timeScale: number): EmulatorConfig {
  return {
    timeScale,
    accounts: [
      { id: ACCOUNT, tier: 'pro', balance: 15_000, keys: [{ key: KEYS.main }, { key: KEYS.revoked, revoked: true }] },
      { id: 'acct_cli_poor', tier: 'pro', balance: 1, keys: [{ key: KEYS.poor }] },
      { id: 'acct_cli_free', tier: 'free', balance: 500, keys: [{ key: KEYS.free }] },
      { id: 'acct_cli_narrow', tier: 'pro', balance: 15_000, keys: [{ key: KEYS.narrow }], models: ['image-fast', 'video-standard'] },
    ],
  } as EmulatorConfig;
}

export async function emulator(timeScale: number): Promise<RunningEmulator> {
  return startEmulator({ port: 0, config: testConfig(timeScale) });
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  baseUrl?: string;
  /** Default: KEYS.main. `null`: no key in the environment. */
  key?: string | null;
  cwd?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * The CLI's cache (render history, input files) for this test run: its own folder, never the
 * machine's `~/.cache`, so no test sees what another run (or a person) left there.
 */
const CACHE = mkdtempSync(join(tmpdir(), 'mediagen-cli-cache-'));

function envFor(options: RunOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TERM: 'xterm-256color',
    XDG_CACHE_HOME: CACHE,
    ...options.env,
  };
  if (options.baseUrl) env.MEDIAGEN_BASE_URL = options.baseUrl;
  const key = options.key === undefined ? KEYS.main : options.key;
  if (key !== null) env.MEDIAGEN_API_KEY = key;
  return env;
}

/** No key of any test account, nor its secret part, in anything the CLI wrote. */
export function expectNoSecrets(text: string): void {
  for (const key of Object.values(KEYS)) {
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(key.lastIndexOf('_') + 1));
  }
}

/** Runs the bin with pipes (not a terminal) and collects its output. */
export function spawnCli(args: string[], options: RunOptions = {}): { child: ChildProcess; done: Promise<RunResult> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: envFor(options), stdio: ['ignore', 'pipe', 'pipe'] });
  return { child, done: collect(child, options.timeoutMs) };
}

export async function runCli(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return spawnCli(args, options).done;
}

/**
 * Runs the bin on a pseudo-terminal through util-linux `script` (no native pty module
 * needed); stdin is a pipe, so a test can type Ctrl-C (\x03) into the terminal.
 */
export function spawnTty(args: string[], options: RunOptions = {}): { child: ChildProcess; done: Promise<RunResult> } {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  // `exec`: the shell `script` starts (sh, without $SHELL) would otherwise wait for the bin and,
  // having seen the typed Ctrl-C's SIGINT itself, end by it (130) whatever code the bin exits with.
  const child = spawn('script', ['-qec', `exec ${command}`, '/dev/null'], {
    cwd: options.cwd,
    env: envFor(options),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return { child, done: collect(child, options.timeoutMs) };
}

function collect(child: ChildProcess, timeoutMs = 60_000): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mediagen did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      expectNoSecrets(stdout + stderr);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** Resolves once `text` appears in what the child wrote (stdout or stderr). */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  let seen = '';
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms; saw: ${seen}`)), timeoutMs);
    const onData = (d: Buffer | string) => {
      seen += d.toString();
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        resolvePromise(match[1] ?? match[0]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
}

export const tempDir = (prefix: string) => mkdtemp(join(tmpdir(), `mediagen-cli-${prefix}-`));

/** A test control of the emulator (loopback only, no key). */
export async function control(base: string, path: string, init?: RequestInit): Promise<any> {
  const response = await fetch(`${base}/__emulator${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...init?.headers },
  });
  return response.json();
}

import { type ChildProcess, spawn } from 'node:child_process';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Killed (the whole process group) after this long. Default 3 minutes. */
  timeoutMs?: number;
  /** Resolve with a non-zero exit instead of throwing. */
  allowFailure?: boolean;
}

/**
 * The environment a user's shell would have: without the `npm_*` / `pnpm_*` settings that
 * `pnpm test` passes down, which would change how npm installs in the consumer projects.
 */
export function userEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm|pnpm)_/i.test(key) && key !== 'INIT_CWD' && key !== 'NODE_OPTIONS') env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * An Error whose message is `summary` and a tool's `output`, and whose stack is only `summary` and
 * this call's frames: vitest reads every `at file:line:col` line of a stack as a frame, and one
 * from a tool's output (a Node stack trace the app printed) can crash its reporter and end the run.
 */
export function failure(summary: string, output: string): Error {
  const error = new Error(`${summary}\n${output}`);
  error.stack = `Error: ${summary}\n${new Error().stack?.split('\n').slice(2).join('\n') ?? ''}`;
  return error;
}

/** Output kept per stream: enough to explain a failure, bounded so a chatty tool cannot fill memory. */
const KEEP_CHARS = 64_000;

function keepTail(text: string): string {
  return text.length > KEEP_CHARS ? text.slice(-KEEP_CHARS) : text;
}

/** Runs a command to the end; throws with its output when it fails (unless `allowFailure`). */
export function run(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  const { cwd, env, timeoutMs = 180_000, allowFailure = false } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: userEnv(env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout = keepTail(stdout + chunk)));
    child.stderr.on('data', (chunk) => (stderr = keepTail(stderr + chunk)));
    const timer = setTimeout(() => killGroup(child), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const result = { code, stdout, stderr };
      if (code === 0 || allowFailure) return resolve(result);
      const why = signal ? `killed (${signal}${signal === 'SIGKILL' ? `, over ${timeoutMs} ms` : ''})` : `exit ${code}`;
      const error = failure(
        `${command} ${args.join(' ')} in ${cwd}: ${why}`,
        `--- stdout\n${stdout.slice(-8000)}\n--- stderr\n${stderr.slice(-8000)}`,
      );
      reject(error);
    });
  });
}

/** A long-running process (a server); its output is kept for the failure message. */
export interface Service {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

export function startService(command: string, args: string[], options: Omit<RunOptions, 'timeoutMs' | 'allowFailure'>): Service {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: userEnv(options.env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = keepTail(output + chunk));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** `npm start` runs the server in a child of npm: signal the group this process leads. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

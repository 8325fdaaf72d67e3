import { ConfigError } from './config.js';
import { type RunningEmulator, startEmulator } from './index.js';

/**
 * The flags both command-line entry points take, as typed (`mediagen-emulator` and
 * `mediagen emulator`): one parser of their values and one set of start-up errors, so the two
 * cannot drift apart again.
 */
export interface ServeFlags {
  port?: string | undefined;
  host?: string | undefined;
  config?: string | undefined;
  publicUrl?: string | undefined;
  /** `--allow-loopback-inputs`: fetch input links on loopback, http too (local development only). */
  allowLoopbackInputs?: boolean | undefined;
}

/** Each flag with its help line, for both entry points' usage text. */
export const SERVE_FLAGS = {
  port: '--port <port>  port, 0 for a free one (default 4010)',
  host: '--host <host>  interface (default 127.0.0.1)',
  config: '--config <file>  emulator config JSON (accounts, keys, allowlists, webhooks)',
  publicUrl:
    '--public-url <url>  the address output links name, when clients reach the emulator by another name than the one it listens on (--host 0.0.0.0, a container)',
  allowLoopbackInputs:
    '--allow-loopback-inputs  fetch input links on loopback (127.0.0.1, ::1, localhost), over http too, for local development; the real service fetches public https links only',
} as const satisfies Record<keyof ServeFlags, string>;

/** Why the emulator did not start: `usage` (a flag's value), `config` (the config file), `listen` (the address). */
export class ServeError extends Error {
  constructor(
    message: string,
    readonly kind: 'usage' | 'config' | 'listen',
  ) {
    super(message);
  }
}

export interface Served extends RunningEmulator {
  /** Where it listens (differs from `url` when `--public-url` is given). */
  listening: string;
}

/** Starts the emulator from command-line flag values. */
export async function serveFromFlags(flags: ServeFlags): Promise<Served> {
  const port = flags.port === undefined ? 4010 : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new ServeError(`--port must be a port number (0-65535), got ${flags.port}.`, 'usage');
  const host = flags.host ?? '127.0.0.1';
  try {
    const running = await startEmulator({
      port,
      host,
      ...(flags.config ? { config: flags.config } : {}),
      ...(flags.publicUrl ? { publicUrl: flags.publicUrl } : {}),
      ...(flags.allowLoopbackInputs ? { allowLoopbackInputs: true } : {}),
    });
    const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    return { ...running, listening: `http://${shown}:${running.port}` };
  } catch (error) {
    if (error instanceof ConfigError) throw new ServeError(error.message, 'config');
    const code = (error as NodeJS.ErrnoException)?.code;
    if (code === 'ENOENT') throw new ServeError(`The config file ${flags.config} does not exist.`, 'config');
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new ServeError(`The emulator cannot listen on ${host}:${port}: ${code}.`, 'listen');
    }
    throw error;
  }
}

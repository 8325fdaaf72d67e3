import { UsageError } from '../errors';
import type { Io } from '../io';

export interface EmulatorOptions {
  port?: string;
  host?: string;
  config?: string;
}

/** Starts the local emulator and serves until Ctrl-C or SIGTERM. */
export async function emulatorCommand(options: EmulatorOptions, io: Io): Promise<number> {
  const port = options.port === undefined ? 4010 : Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port must be a port number (0-65535).`);
  const host = options.host ?? '127.0.0.1';
  // Loaded only here: every other command starts faster without the emulator's code.
  const { ConfigError, DEFAULT_KEY, startEmulator } = await import('@mediagen/emulator');
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  try {
    emulator = await startEmulator({ port, host, ...(options.config ? { config: options.config } : {}) });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, 'Fix the config file (see the @mediagen/emulator README).');
    const code = (error as NodeJS.ErrnoException)?.code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL' || code === 'ENOENT') {
      throw new UsageError(`The emulator cannot start on ${host}:${port}: ${code}.`, 'Pick another --port, or check --config.');
    }
    throw error;
  }
  // Listening for the stop signals before saying it is up: a Ctrl-C right after is still clean.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  io.out(`mediagen emulator listening on ${emulator.url}`);
  io.err(`export MEDIAGEN_BASE_URL=${emulator.url}`);
  // The emulator's documented demo key, not a user's secret; with a config the keys are the user's own.
  if (!options.config) io.err(`export MEDIAGEN_API_KEY=${DEFAULT_KEY}`);
  io.err('Ctrl-C stops it.');
  await stopped;
  await emulator.close();
  return 0;
}

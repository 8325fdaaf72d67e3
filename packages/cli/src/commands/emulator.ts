import { UsageError } from '../errors';
import type { Io } from '../io';

export interface EmulatorOptions {
  port?: string;
  host?: string;
  config?: string;
  publicUrl?: string;
  allowLoopbackInputs?: boolean;
}

/**
 * Starts the local emulator and serves until Ctrl-C or SIGTERM. The flags and their start-up
 * errors are the emulator's own (`serveFromFlags`), the same as `mediagen-emulator`'s.
 */
export async function emulatorCommand(options: EmulatorOptions, io: Io): Promise<number> {
  // Loaded only here: every other command starts faster without the emulator's code.
  const { DEFAULT_KEY, ServeError, serveFromFlags } = await import('@mediagen/emulator');
  let emulator: Awaited<ReturnType<typeof serveFromFlags>>;
  try {
    emulator = await serveFromFlags(options);
  } catch (error) {
    if (!(error instanceof ServeError)) throw error;
    const hint = { usage: undefined, config: 'Fix the config file (see the @mediagen/emulator README).', listen: 'Pick another --port.' }[
      error.kind
    ];
    throw new UsageError(error.message, hint);
  }
  // Listening for the stop signals before saying it is up: a Ctrl-C right after is still clean.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  io.out(`mediagen emulator listening on ${emulator.listening}`);
  io.err(`export MEDIAGEN_BASE_URL=${emulator.url}`);
  // The emulator's documented demo key, not a user's secret; with a config the keys are the user's own.
  if (!options.config) io.err(`export MEDIAGEN_API_KEY=${DEFAULT_KEY}`);
  io.err('Ctrl-C stops it.');
  await stopped;
  await emulator.close();
  return 0;
}

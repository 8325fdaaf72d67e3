import { MediaGenError } from '@mediagen/core';

/** A command line that cannot run as typed: a missing or malformed flag or argument. */
export class UsageError extends MediaGenError {
  constructor(message: string, next?: string) {
    super(message, { code: 'USAGE', retryable: false, next: next ?? 'Run the command with --help to see its options.' });
  }
}

/** The model is not in this account's list, so its params cannot be read or checked. */
export class UnknownModelError extends MediaGenError {
  constructor(slug: string, available: string[]) {
    super(`Model "${slug}" is not in this account's model list.`, {
      code: 'UNKNOWN_MODEL',
      retryable: false,
      next: available.length > 0 ? `Use one of: ${available.join(', ')} (mediagen models).` : 'This account lists no models.',
    });
  }
}

/** The outputs could not be written where `--out` points. */
export class OutputWriteError extends MediaGenError {
  /** `retry`: the command that writes them again, e.g. `mediagen wait <id>`. */
  constructor(dir: string, cause: unknown, retry: string) {
    const reason = (cause as NodeJS.ErrnoException)?.code ?? 'write failed';
    super(`Could not write the outputs into ${dir} (${reason}).`, {
      code: 'OUTPUT_WRITE_FAILED',
      retryable: true,
      next: `Pick a writable directory, then: ${retry} --out <dir>`,
      cause,
    });
  }
}

/** No key in `--api-key` nor `MEDIAGEN_API_KEY`. */
export class MissingKeyError extends MediaGenError {
  constructor() {
    super('No API key: set MEDIAGEN_API_KEY or pass --api-key.', {
      code: 'NO_API_KEY',
      retryable: false,
      next: 'Create a key in Settings, API & Webhooks; the local emulator (mediagen emulator) takes svc_live_emulator_demo.',
    });
  }
}

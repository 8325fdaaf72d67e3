import { type ClientOptions, DEFAULT_BASE_URL, type LogLevel, MediaGenClient } from '@mediagen/core';
import { MissingKeyError, UsageError } from './errors';
import type { Io } from './io';

/** Core's levels (its list is not public): a level core adds fails to compile here until it is listed. */
const LOG_LEVELS = Object.keys({ debug: 0, info: 0, warn: 0, error: 0, off: 0 } satisfies Record<LogLevel, 0>) as LogLevel[];

/** Options every command takes (see `globalOptions` in program.ts). */
export interface GlobalOptions {
  apiKey?: string;
  baseUrl?: string;
  maxRetries?: string;
  json?: boolean;
}

/**
 * A client from the flags, else `MEDIAGEN_API_KEY` (read by core itself) / `MEDIAGEN_BASE_URL`,
 * else the local emulator: the CLI's documented default even in a shell with `NODE_ENV=production`
 * (core refuses the implicit default there, which guards servers, not a developer's tool; a
 * wrong address here fails on the first command, with a hint naming `MEDIAGEN_BASE_URL`).
 * The key is registered with the output first, so nothing can print it afterwards.
 */
export function clientFrom(
  options: GlobalOptions,
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
  extra: Pick<ClientOptions, 'inputs' | 'gate' | 'onRequest' | 'onResponse'> = {},
): MediaGenClient {
  io.addSecret(options.apiKey);
  io.addSecret(env.MEDIAGEN_API_KEY);
  // Credentials in a base URL (a proxy's user:password) are secrets too.
  for (const url of [options.baseUrl, env.MEDIAGEN_BASE_URL]) {
    const parsed = url && URL.canParse(url) ? new URL(url) : undefined;
    if (parsed?.password) io.addSecret(decodeURIComponent(parsed.password));
    if (parsed?.password) io.addSecret(parsed.password);
  }
  if (!options.apiKey && !env.MEDIAGEN_API_KEY) throw new MissingKeyError();
  let maxRetries: number | undefined;
  if (options.maxRetries !== undefined) {
    // Digits only: Number() would take '' as 0, '1e3' as 1000 and '0x10' as 16.
    maxRetries = /^\d{1,3}$/.test(options.maxRetries) ? Number(options.maxRetries) : Number.NaN;
    if (!Number.isInteger(maxRetries)) throw new UsageError(`--max-retries must be a whole number from 0 to 999.`);
  }
  // Core reads MEDIAGEN_LOG itself; checked here so the refusal names the variable, not an SDK option.
  const logLevel = env.MEDIAGEN_LOG?.trim().toLowerCase();
  if (logLevel && !LOG_LEVELS.includes(logLevel as LogLevel)) {
    throw new UsageError(
      `MEDIAGEN_LOG must be one of ${LOG_LEVELS.join(', ')} (or unset).`,
      'Set MEDIAGEN_LOG=debug to see each request, or unset it.',
    );
  }
  const clientOptions: ClientOptions = {
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    baseUrl: options.baseUrl ?? (env.MEDIAGEN_BASE_URL?.trim() || DEFAULT_BASE_URL),
    ...(maxRetries === undefined ? {} : { maxRetries }),
    // The client's request log (MEDIAGEN_LOG=debug) goes to stderr, never into --json on stdout,
    // and through the same mask as everything else the CLI writes.
    logger: { debug: io.err, info: io.err, warn: io.err, error: io.err },
    ...extra,
  };
  return new MediaGenClient(clientOptions);
}

import { ConfigurationError } from '../errors';
import { redact } from '../util/redact';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

/** Anything console-like: `console`, pino, winston, a test's array. Missing methods are skipped. */
export interface Logger {
  debug?(message: string): void;
  info?(message: string): void;
  warn?(message: string): void;
  error?(message: string): void;
}

type Line = (message: string) => void;

/**
 * One function per enabled level, `undefined` for the others: a call site writes
 * `log.debug?.(\`…\`)`, and when the level is off the template is never even built.
 */
export interface RequestLog {
  readonly debug: Line | undefined;
  readonly info: Line | undefined;
  /** A request hook of the app's that threw. */
  readonly warn: Line | undefined;
}

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'off'];

/** Every line is redacted (the API key and anything secret-shaped) before the logger sees it. */
export function createRequestLog(level: string, logger: Logger, secrets: readonly string[]): RequestLog {
  const rank = LEVELS.indexOf(level.toLowerCase() as LogLevel);
  if (rank < 0) throw new ConfigurationError(`logLevel must be one of ${LEVELS}.`);
  const line = (at: keyof RequestLog): Line | undefined => {
    if (LEVELS.indexOf(at) < rank) return undefined;
    const write = logger[at];
    return typeof write === 'function' ? (message) => write.call(logger, `[mediagen] ${redact(message, secrets)}`) : undefined;
  };
  return { debug: line('debug'), info: line('info'), warn: line('warn') };
}

import pc from 'picocolors';
import { terminalText } from './terminal-text';

/** Where a command writes: results to stdout, progress and errors to stderr. */
export interface Io {
  /** A result line (stdout). */
  out(line: string): void;
  /** A diagnostic line: progress, hints, errors (stderr). */
  err(line: string): void;
  /** Raw stderr text, for the live progress line (no newline added). */
  errRaw(text: string): void;
  /** One JSON document on stdout. */
  json(value: unknown): void;
  /** stderr is a terminal: progress may redraw one line. */
  readonly errIsTTY: boolean;
  /** The terminal's width, when stderr is one. */
  readonly errColumns: number | undefined;
  readonly color: ReturnType<typeof pc.createColors>;
  /** Values that must never be written (the API key); each is replaced by `[redacted]`, trimmed or not. */
  addSecret(secret: string | undefined): void;
}

export interface IoStreams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

/**
 * Every byte the CLI writes goes through here, and every known secret is masked on the way
 * out: a key pasted into the wrong flag is echoed back as `[redacted]`, never in clear. Lines
 * and the progress text also lose any control a service answer could carry (`terminalText`);
 * JSON is left as JSON.stringify escapes it.
 */
export function createIo(streams: IoStreams = process, options: { color?: boolean } = {}): Io {
  const useColor = options.color ?? colorWanted(streams.stderr, process.env, process.argv);
  const secrets = new Set<string>();
  const mask = (text: string) => {
    let masked = text;
    for (const secret of secrets) masked = masked.split(secret).join('[redacted]');
    return masked;
  };
  return {
    out: (line) => void streams.stdout.write(`${terminalText(mask(line))}\n`),
    err: (line) => void streams.stderr.write(`${terminalText(mask(line))}\n`),
    errRaw: (text) => void streams.stderr.write(terminalText(mask(text))),
    json: (value) => void streams.stdout.write(`${mask(JSON.stringify(value, null, 2))}\n`),
    // A dumb terminal cannot redraw a line: it gets the plain lines a log gets.
    errIsTTY: Boolean(streams.stderr.isTTY) && process.env.TERM !== 'dumb',
    get errColumns() {
      // Read on each use: the terminal may be resized while waiting.
      return streams.stderr.columns;
    },
    color: pc.createColors(useColor),
    addSecret(secret) {
      if (!secret) return;
      // Very short values would mask ordinary words; real keys are long. Core trims a key read
      // from the environment (a .env line's `\r`, spaces): the key it sends is the trimmed one,
      // so that, and each piece of a key split by a stray line break, is masked too.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what splits a pasted key.
      for (const piece of [secret, secret.trim(), ...secret.split(/[\s\0-\x1f\x7f]+/)]) if (piece.length >= 8) secrets.add(piece);
    },
  };
}

/**
 * Colour follows stderr, where the coloured lines go: picocolors' own default looks at stdout,
 * which is a pipe in `mediagen … --json | jq` while the progress line is still on a terminal.
 */
function colorWanted(stderr: IoStreams['stderr'], env: NodeJS.ProcessEnv, argv: readonly string[]): boolean {
  if ('NO_COLOR' in env || argv.includes('--no-color')) return false;
  if ('FORCE_COLOR' in env && env.FORCE_COLOR !== '0') return true;
  return Boolean(stderr.isTTY) && env.TERM !== 'dumb';
}

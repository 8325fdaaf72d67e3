import { createStyle, escapeData, jsonText, type Style, type Text, terminalText } from './terminal-text';

/** Where a command writes: results to stdout, progress and errors to stderr. */
export interface Io {
  /** A result line (stdout). A string is data: escaped whole; styling comes only as `Styled`. */
  out(line: Text): void;
  /** A diagnostic line: progress, hints, errors (stderr). */
  err(line: Text): void;
  /** stderr text without a newline, for the live progress line. */
  errRaw(text: Text): void;
  /** One JSON document on stdout. */
  json(value: unknown): void;
  /** stderr is a terminal: progress may redraw one line. */
  readonly errIsTTY: boolean;
  /** The terminal's width, when stderr is one. */
  readonly errColumns: number | undefined;
  /** The CLI's colours (off when colour is not wanted): each escapes its text, then styles it. */
  readonly color: Style;
  /** Values that must never be written (the API key); each is replaced by `[redacted]`, trimmed or not. */
  addSecret(secret: string | undefined): void;
}

export interface IoStreams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

/**
 * Every byte the CLI writes goes through here, and every known secret is masked on the way
 * out: a key pasted into the wrong flag is echoed back as `[redacted]`, never in clear. Data
 * reaches the terminal only escaped (`terminal-text.ts`): a line given as a string is escaped
 * whole, and styling only comes from the CLI's own `Styled` text; JSON is escaped too.
 */
export function createIo(streams: IoStreams = process, options: { color?: boolean } = {}): Io {
  const useColor = options.color ?? colorWanted(streams.stderr, process.env, process.argv);
  const secrets = new Set<string>();
  // Masked after escaping: each secret is also known in its escaped forms (`addSecret`).
  const mask = (text: string) => {
    let masked = text;
    for (const secret of secrets) masked = masked.split(secret).join('[redacted]');
    return masked;
  };
  return {
    out: (line) => void streams.stdout.write(`${mask(terminalText(line))}\n`),
    err: (line) => void streams.stderr.write(`${mask(terminalText(line))}\n`),
    errRaw: (text) => void streams.stderr.write(mask(terminalText(text))),
    json: (value) => void streams.stdout.write(`${mask(jsonText(value, 2))}\n`),
    // A dumb terminal cannot redraw a line: it gets the plain lines a log gets.
    errIsTTY: Boolean(streams.stderr.isTTY) && process.env.TERM !== 'dumb',
    get errColumns() {
      // Read on each use: the terminal may be resized while waiting.
      return streams.stderr.columns;
    },
    color: createStyle(useColor),
    addSecret(secret) {
      if (!secret) return;
      // Very short values would mask ordinary words; real keys are long. Core trims a key read
      // from the environment (a .env line's `\r`, spaces): the key it sends is the trimmed one,
      // so that, and each piece of a key split by a stray line break, is masked too.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what splits a pasted key.
      for (const piece of [secret, secret.trim(), ...secret.split(/[\s\0-\x1f\x7f]+/)]) {
        if (piece.length < 8) continue;
        // As written: escaped for a line, escaped inside a JSON string.
        secrets.add(piece).add(escapeData(piece)).add(jsonText(piece).slice(1, -1));
      }
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

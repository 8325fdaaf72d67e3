import pc from 'picocolors';

/**
 * What data may never write as it is: every control character but tab and line feed (the C0
 * set with ESC and a lone `\r`, DEL, the C1 set with its one-character CSI U+009B), every
 * invisible format character (bidi overrides and isolates, marks, zero-width spaces, the tag
 * characters that smuggle hidden text, with the rest of their block) except the two joiners
 * that shape scripts and emoji (U+200C, U+200D), the line and paragraph separators some
 * terminals break lines on, and lone surrogates.
 */
const UNSAFE = /[^\P{Cc}\t\n]|[^\P{Cf}\u200c\u200d]|[\u2028\u2029\u{e0000}-\u{e007f}]|\p{Cs}/gu;

/**
 * Data (anything the service answered, a flag's value, an error's message) as terminal text:
 * each unsafe character shows as U+FFFD instead of acting, one for one, so table columns keep
 * their widths. The one place data becomes terminal text; no byte of data passes as styling.
 */
export function escapeData(data: string): string {
  return data.replace(UNSAFE, '\uFFFD');
}

/**
 * Terminal text the CLI made: its data escaped first, then styled by the CLI's own code. Only
 * this module makes one (the class is not exported, and its private field makes the type
 * nominal), so a value that came from outside can only reach the terminal as a string, escaped.
 */
class Styled {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

export type { Styled };

/** A line or part of one: a string is data (escaped whole), a `Styled` is the CLI's own. */
export type Text = string | Styled;

/** What is written for `text`. */
export function terminalText(text: Text): string {
  return text instanceof Styled ? text.toString() : escapeData(text);
}

/**
 * A line with styled parts: ``styled`${style.red('error')} ${message}` ``. The literal parts are
 * the CLI's source; each value is escaped unless it is already `Styled`.
 */
export function styled(literals: TemplateStringsArray, ...values: Text[]): Styled {
  let text = literals[0] ?? '';
  for (const [i, value] of values.entries()) text += terminalText(value) + (literals[i + 1] ?? '');
  return new Styled(text);
}

/** The progress line's redraw: clear the whole line and return to its start. Never data's to write. */
export const CLEAR_LINE = new Styled('\r\x1b[2K');

/** The colours the CLI uses; each escapes what it is given, then wraps it. */
export interface Style {
  red(text: Text): Styled;
  cyan(text: Text): Styled;
  bold(text: Text): Styled;
  dim(text: Text): Styled;
}

export function createStyle(enabled: boolean): Style {
  const colors = pc.createColors(enabled);
  const wrap = (color: (s: string) => string) => (text: Text) => new Styled(color(terminalText(text)));
  return { red: wrap(colors.red), cyan: wrap(colors.cyan), bold: wrap(colors.bold), dim: wrap(colors.dim) };
}

/**
 * A value as JSON that is also safe on a terminal: JSON.stringify escapes the C0 controls but
 * leaves DEL, C1, bidi and the other format characters raw. Those can only stand inside a JSON
 * string (the syntax is ASCII), where `\uXXXX` per UTF-16 unit is the same character:
 * `JSON.parse` gives back the very value.
 */
export function jsonText(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(UNSAFE, (unsafe) =>
    Array.from({ length: unsafe.length }, (_, i) => `\\u${unsafe.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}

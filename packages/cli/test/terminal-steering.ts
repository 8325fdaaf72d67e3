/**
 * What a hostile service could put in its text to steer a terminal, and how tests look for it.
 * Written apart from `src/terminal-text.ts` on purpose: the tests do not check the filter with itself.
 */
import fc from 'fast-check';

/**
 * Anything that steers a terminal or hides text: C0 but tab and newline (ESC, a bare `\r`), DEL,
 * C1 (U+009B is a one-character CSI), bidi marks, overrides and isolates, zero-width and other
 * invisible format characters, line and paragraph separators, tag characters.
 */
export const STEERING =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff]|\udb40[\udc00-\udc7f]/;

/** The SGR codes the CLI's colours write (picocolors' red, cyan, bold, dim and their resets). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the CLI's own sequences.
export const OWN_SGR = /\x1b\[(?:1|2|22|31|36|39)m/g;

/** Known sequences: hidden text, the CLI's own colour and line clear, titles, links, screen and cursor moves, C1, bidi, invisibles. */
const known = fc.constantFrom(
  '\x1b[8m',
  '\x1b[31m',
  '\x1b[0m',
  '\r\x1b[2K',
  '\r\x1b[2K done: saved 1 file (all good)',
  '\r',
  '\x1b]0;title\x07',
  '\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\',
  '\x1b[2J',
  '\x1b[1A',
  '\x1bc',
  '\u009b31m',
  '\u009d0;title\u009c',
  '\u202e',
  '\u2066',
  '\u2069',
  '\u200f',
  '\u200b',
  '\ufeff',
  '\x7f',
  '\x00',
  '\u{e0041}',
  '\u2028',
);

/** A CSI (7-bit or C1) with any parameters and a final byte. */
const csi = fc
  .tuple(
    fc.constantFrom('\x1b[', '\u009b'),
    fc.array(fc.integer({ min: 0, max: 999 }), { maxLength: 3 }),
    fc.constantFrom('m', 'K', 'J', 'H', 'A', 'G'),
  )
  .map(([intro, params, final]) => `${intro}${params.join(';')}${final}`);

/** Service text: any Unicode (lone surrogates too), mixed with escape sequences. */
export const hostileText = fc
  .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), known, csi), { maxLength: 5 })
  .map((parts) => parts.join(''));

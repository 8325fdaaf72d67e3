import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createIo } from '../src/io';
import { terminalText } from '../src/terminal-text';

/** What may steer a terminal once the CLI's own styling (SGR colours, `\r ESC[2K`) is taken out. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
const STEERING = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the CLI's own sequences.
const OWN_STYLING = /\r\x1b\[2K|\x1b\[[0-9;]*m/g;

function written(write: (io: ReturnType<typeof createIo>) => void): string {
  const stderr = new PassThrough();
  const stdout = new PassThrough();
  const io = createIo({ stdout, stderr }, { color: true });
  write(io);
  return `${stdout.read() ?? ''}${stderr.read() ?? ''}`;
}

describe('terminalText: a service answer cannot steer the terminal', () => {
  it('any text, through out, err and errRaw: nothing steering is left beside the CLI’s own styling', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const out = written((io) => {
          io.out(text);
          io.err(io.color.red(text));
          io.errRaw(`\r\x1b[2K${io.color.cyan('⠋')} ${text}`);
        });
        expect(out.replace(OWN_STYLING, '')).not.toMatch(STEERING);
      }),
    );
  });

  it('printable text, tabs and newlines pass unchanged; the CLI’s colours and line clear too', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...' \tab~é✓⠋\n'.split('')), maxLength: 80 }), (text) => {
        expect(terminalText(text)).toBe(text);
      }),
    );
    expect(terminalText('\r\x1b[2K\x1b[36m⠋\x1b[39m \x1b[1mpending\x1b[22m')).toBe('\r\x1b[2K\x1b[36m⠋\x1b[39m \x1b[1mpending\x1b[22m');
  });

  it('an OSC title, a screen clear, a cursor move, a lone \\r, a C1 CSI and a bidi override each show as U+FFFD', () => {
    expect(terminalText('a\x1b]0;pwned\x07b')).toBe('a\uFFFD]0;pwned\uFFFDb');
    expect(terminalText('\x1b[2J\x1b[1A\x1b[2K')).toBe('\uFFFD[2J\uFFFD[1A\uFFFD[2K');
    expect(terminalText('ok\rforged')).toBe('ok\uFFFDforged');
    expect(terminalText('\u009b31m\u202eevil')).toBe('\uFFFD31m\uFFFDevil');
  });
});

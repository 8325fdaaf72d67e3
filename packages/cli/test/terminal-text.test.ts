import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createIo } from '../src/io';
import { CLEAR_LINE, escapeData, jsonText, styled, terminalText } from '../src/terminal-text';
import { hostileText, OWN_SGR, STEERING } from './terminal-steering';

function written(write: (io: ReturnType<typeof createIo>) => void, color = true): string {
  const stderr = new PassThrough();
  const stdout = new PassThrough();
  const io = createIo({ stdout, stderr }, { color });
  write(io);
  return `${stdout.read() ?? ''}${stderr.read() ?? ''}`;
}

describe('terminal text: data is escaped first, styling is only the CLI’s own', () => {
  it('any text, as a line, inside a styled line, coloured, or after the CLI’s line clear: no control of its own reaches the terminal', () => {
    fc.assert(
      fc.property(hostileText, fc.boolean(), (text, color) => {
        const out = written((io) => {
          io.out(text);
          io.err(io.color.red(text));
          io.err(styled`${io.color.bold('error')} ${text} (${text})`);
          io.errRaw(styled`${CLEAR_LINE}${io.color.cyan('⠋')} ${io.color.bold(text)}`);
        }, color);
        // Exactly the one line clear the CLI wrote: one in the data would erase the real line.
        expect(out.split('\r\x1b[2K')).toHaveLength(2);
        const rest = out.replace('\r\x1b[2K', '');
        if (!color) expect(rest).not.toMatch(STEERING);
        // With colour, the CLI's own SGR codes, and nothing else, are added.
        else expect(rest.replace(OWN_SGR, '')).not.toMatch(STEERING);
      }),
    );
  });

  it('the sequences the CLI styles with are data like any other when they come from outside', () => {
    // Hidden text (SGR 8) and a forged "done" line: each shown, neither acting.
    expect(terminalText('\x1b[8mhidden')).toBe('\uFFFD[8mhidden');
    expect(terminalText('\r\x1b[2K done: saved 1 file (all good)')).toBe('\uFFFD\uFFFD[2K done: saved 1 file (all good)');
    expect(terminalText(styled`tier ${'\x1b[8m'}`)).toBe('tier \uFFFD[8m');
  });

  it('printable text, tabs and newlines pass unchanged, the joiners of emoji and scripts too', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...' \tab~é✓⠋\n'.split(''), '👨‍👩‍👧', 'می‌خواهم'), maxLength: 80 }), (text) => {
        expect(escapeData(text)).toBe(text);
      }),
    );
  });

  it('an OSC title, a screen clear, a cursor move, a lone \\r, a C1 CSI, bidi controls and invisible characters each show as U+FFFD', () => {
    expect(escapeData('a\x1b]0;pwned\x07b')).toBe('a\uFFFD]0;pwned\uFFFDb');
    expect(escapeData('\x1b[2J\x1b[1A\x1b[2K')).toBe('\uFFFD[2J\uFFFD[1A\uFFFD[2K');
    expect(escapeData('ok\rforged')).toBe('ok\uFFFDforged');
    expect(escapeData('\u009b31m\u202eevil\u2067x\u200by\u{e0041}\u2028')).toBe('\uFFFD31m\uFFFDevil\uFFFDx\uFFFDy\uFFFD\uFFFD');
  });

  it('a key is masked whatever form it is written in: as is, escaped on a line, escaped in JSON', () => {
    const key = 'svc_live_\u0085secretpart1234';
    const out = written((io) => {
      io.addSecret(key);
      io.out(key);
      io.json({ key });
    });
    expect(out).not.toContain('secretpart1234');
  });
});

describe('--json: valid JSON that parses back to the value, and safe on a terminal', () => {
  it('any value (fast-check, full Unicode strings)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => {
        const out = written((io) => io.json(value));
        expect(out).not.toMatch(STEERING);
        expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('C1, bidi and the line separator are written as \\u escapes', () => {
    expect(jsonText({ name: '\u009b31m\u202e\u2028\x7f' })).toBe('{"name":"\\u009b31m\\u202e\\u2028\\u007f"}');
    expect(jsonText('\u{e0041}')).toBe('"\\udb40\\udc41"');
  });
});

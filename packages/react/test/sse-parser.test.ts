import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseParser, type SseMessage } from '../src/index';
import { SSE_MAX_EVENT_CHARS } from '../src/sse';

const parse = (chunks: string[]) => {
  const events: SseMessage[] = [];
  const retries: number[] = [];
  const parser = createSseParser(
    (m) => events.push(m),
    (ms) => retries.push(ms),
  );
  for (const chunk of chunks) parser.feed(chunk);
  return { events, retries, lastEventId: parser.lastEventId };
};

describe('createSseParser', () => {
  it('reads events, ids, named events, retry and skips comments', () => {
    const { events, retries, lastEventId } = parse(['retry: 2000\n\n: ping\n\nid: 1\ndata: {"a":1}\n\nevent: error\ndata: x\ndata: y\n\n']);
    expect(events).toEqual([
      { event: 'message', data: '{"a":1}', id: '1' },
      { event: 'error', data: 'x\ny', id: '1' },
    ]);
    expect(retries).toEqual([2000]);
    expect(lastEventId).toBe('1');
  });

  it('gives the same events however the bytes are split, with any line ending', () => {
    const event = fc.record({ id: fc.stringMatching(/^[a-z0-9.]{1,8}$/), data: fc.stringMatching(/^[^\r\n]{0,20}$/) });
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 1, maxLength: 5 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(), { maxLength: 8 }),
        (list, eol, cuts) => {
          const text = list.map((e) => `: ping${eol}id: ${e.id}${eol}data: ${e.data}${eol}${eol}`).join('');
          const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...points, text.length].slice(1).map((end, i, all) => text.slice(i === 0 ? 0 : all[i - 1], end));
          const whole = parse([text]).events;
          expect(whole.map((e) => [e.id, e.data])).toEqual(list.map((e) => [e.id, e.data]));
          expect(parse(chunks).events).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stops at the bound: one line or one event past SSE_MAX_EVENT_CHARS throws, however it is split', () => {
    const feedAll = (chunks: string[]) => {
      const events: SseMessage[] = [];
      const parser = createSseParser((m) => events.push(m));
      let thrownAt: number | undefined;
      let fed = 0;
      for (const chunk of chunks) {
        fed += chunk.length;
        try {
          parser.feed(chunk);
        } catch (error) {
          expect(error).toBeInstanceOf(RangeError);
          thrownAt = fed;
          break;
        }
      }
      return { events, thrownAt, overflowed: parser.overflowed, parser };
    };
    const split = (text: string, size: number) =>
      Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
    fc.assert(
      fc.property(fc.constantFrom('line', 'data lines', 'comment'), fc.integer({ min: 1, max: 200_000 }), (shape, chunkSize) => {
        const over = SSE_MAX_EVENT_CHARS + 10;
        const text =
          shape === 'line'
            ? `data: ${'x'.repeat(over)}`
            : shape === 'comment'
              ? `: ${'x'.repeat(over)}\n`
              : 'data: xxxxxxx\n'.repeat(Math.ceil(over / 8));
        const { events, thrownAt, overflowed, parser } = feedAll(split(text, chunkSize));
        expect(overflowed).toBe(true);
        expect(events).toEqual([]);
        // It stopped within one chunk of the bound: what it holds never grows past it. (A data
        // line of 14 characters holds 8: its value and the newline joining it to the next.)
        const textAtBound = shape === 'data lines' ? Math.ceil(SSE_MAX_EVENT_CHARS / 8) * 14 : SSE_MAX_EVENT_CHARS + 2;
        expect(thrownAt).toBeLessThanOrEqual(textAtBound + 14 + chunkSize);
        // Once over, nothing more is read.
        expect(() => parser.feed('\n\ndata: y\n\n')).toThrow(RangeError);
      }),
      { numRuns: 30 },
    );
  });

  it('an event just within the bound is delivered whole', () => {
    const data = 'x'.repeat(SSE_MAX_EVENT_CHARS - 16);
    const { events } = parse([`data: ${data.slice(0, 1000)}`, `${data.slice(1000)}\n\n`]);
    expect(events).toEqual([{ event: 'message', data, id: undefined }]);
  });
});

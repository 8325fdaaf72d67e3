import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseParser, type SseMessage } from '../src/index';

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
});

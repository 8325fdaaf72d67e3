import { EventEmitter } from 'node:events';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { sendWebResponse } from '../src/node';

/**
 * A reader that stops reading (a slow or hostile browser on an event stream): the Node layer
 * must stop pulling from the body while the socket is full, or every event the producer makes
 * is buffered in the response for ever.
 */
describe('sendWebResponse under backpressure', () => {
  it('pulls no further while write() says the socket is full, and resumes on drain', async () => {
    const res = Object.assign(new EventEmitter(), {
      statusCode: 0,
      writes: 0,
      ended: false,
      setHeader() {},
      write() {
        res.writes += 1;
        return false;
      },
      end() {
        res.ended = true;
      },
    });
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        if (pulls > 1_000) controller.close();
        else controller.enqueue(new Uint8Array(1024));
      },
    });
    const sent = sendWebResponse(res, new Response(body));
    for (let i = 0; i < 20; i++) await turn();
    expect(res.writes).toBe(1);
    expect(pulls).toBeLessThanOrEqual(3);
    res.emit('drain');
    for (let i = 0; i < 20; i++) await turn();
    expect(res.writes).toBe(2);
    res.emit('close');
    await sent;
    expect(res.ended).toBe(true);
  });
});

import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { sendWebResponse } from '../src/node';
import { SseConnection } from '../src/server/sse-connection';

/**
 * The Node path of an event stream: `sendWebResponse` hands the connection the Node response,
 * and each event is written to it as it is sent, with no Web body read in between. Here the
 * response is a stand-in whose `write` answers what a socket would, so fullness is in the
 * test's hands.
 */
function nodeResponse(socketFull = false) {
  const res = Object.assign(new EventEmitter(), {
    statusCode: 0,
    headers: {} as Record<string, unknown>,
    chunks: [] as string[],
    ended: 0,
    destroyed: false,
    full: socketFull,
    setHeader(name: string, value: unknown) {
      res.headers[name] = value;
    },
    write(chunk: Uint8Array) {
      res.chunks.push(new TextDecoder().decode(chunk));
      return !res.full;
    },
    end() {
      res.ended += 1;
    },
  });
  return res;
}

const encoder = new TextEncoder();
const event = (data: string) => encoder.encode(`data: ${data}\n\n`);
const datas = (chunks: string[]) => chunks.map((c) => c.replace(/^data: |\n\n$/g, ''));

describe('an event stream written straight to the Node response', () => {
  it('writes each event as it is sent, after what the unread Web body held, in order', () => {
    let closes = 0;
    const connection = new SseConnection(() => closes++);
    connection.send('retry', encoder.encode('retry: 2000\n\n'));
    connection.send('gen-1', event('one'));
    const res = nodeResponse();
    void sendWebResponse(res, connection.response);
    // Synchronously: no Web stream read, no promise turn between a send and the socket.
    expect(res.chunks).toEqual(['retry: 2000\n\n', 'data: one\n\n']);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    connection.send('gen-1', event('two'));
    expect(datas(res.chunks.slice(2))).toEqual(['two']);
    expect(closes).toBe(0);
  });

  it('holds at most one event per key while the socket is full: the latest, never a backlog', async () => {
    const connection = new SseConnection(() => {});
    const res = nodeResponse(true);
    const sent = sendWebResponse(res, connection.response);
    for (let i = 0; i < 10_000; i++) connection.send(`gen-${i % 3}`, event(String(i)));
    // The first went out and filled the socket; the rest waited, each replaced by its key's newer one.
    expect(datas(res.chunks)).toEqual(['0']);
    res.emit('drain');
    expect(datas(res.chunks)).toEqual(['0', '9997']);
    res.full = false;
    res.emit('drain');
    expect(datas(res.chunks)).toEqual(['0', '9997', '9998', '9999']);
    connection.end();
    expect(res.ended).toBe(1);
    res.emit('close');
    await sent;
  });

  it('sends what the body held when the stream ended before the Node layer came, then ends the response', async () => {
    let closes = 0;
    const connection = new SseConnection(() => closes++);
    connection.send('retry', encoder.encode('retry: 2000\n\n'));
    // Nothing newer than what the browser has (its Last-Event-ID): the stream ends at once.
    connection.end();
    expect([connection.closed, closes]).toEqual([true, 1]);
    const res = nodeResponse();
    const sent = sendWebResponse(res, connection.response);
    expect([res.chunks, res.ended]).toEqual([['retry: 2000\n\n'], 1]);
    res.emit('close');
    await sent;
    expect(closes).toBe(1);
  });

  it('skips the heartbeat while the socket is full', () => {
    const connection = new SseConnection(() => {});
    const res = nodeResponse(true);
    void sendWebResponse(res, connection.response);
    const ping = encoder.encode(': ping\n\n');
    connection.ping(ping);
    connection.ping(ping);
    expect(res.chunks).toEqual([': ping\n\n']);
  });

  it('closes the connection once when the browser hangs up, and writes nothing after', async () => {
    let closes = 0;
    const connection = new SseConnection(() => closes++);
    const res = nodeResponse();
    const sent = sendWebResponse(res, connection.response);
    res.emit('close');
    await sent;
    expect([connection.closed, closes]).toEqual([true, 1]);
    connection.send('gen-1', event('late'));
    connection.abort();
    expect([res.chunks, closes]).toEqual([[], 1]);
  });

  it('closes the connection at once when the response is gone before the stream begins', async () => {
    let closes = 0;
    const connection = new SseConnection(() => closes++);
    const res = Object.assign(nodeResponse(), { destroyed: true });
    await sendWebResponse(res, connection.response);
    expect([connection.closed, closes]).toEqual([true, 1]);
  });

  it('is found on the body, so a response rebuilt around it (CORS headers added) keeps the direct path', () => {
    const connection = new SseConnection(() => {});
    const own = connection.response;
    const rebuilt = new Response(own.body, { status: own.status, headers: { ...Object.fromEntries(own.headers), vary: 'origin' } });
    const res = nodeResponse();
    void sendWebResponse(res, rebuilt);
    connection.send('gen-1', event('one'));
    expect(datas(res.chunks)).toEqual(['one']);
    expect(res.headers.vary).toBe('origin');
  });
});

import { readSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  body: string;
  /** Body bytes handed to the socket when the answer was read: never less than the server had received when it answered. */
  sentBeforeAnswer: number;
}

/**
 * A POST over a raw socket, so a test controls exactly what reaches the server and when:
 * a body trickled, cut short of its `Content-Length`, or stalled. Chunked framing when no
 * `content-length` header is given. `answer` settles on the first complete response (or
 * rejects if the server closes without one); `write` sends body bytes, `end` the final chunk.
 *
 * An answer that comes while the body is still being sent is read even if the connection is
 * reset right after it: see `queuedBytes`.
 */
export function rawUpload(origin: string, path: string, headers: Record<string, string>) {
  const { hostname, port } = new URL(origin);
  const socket: Socket = connect(Number(port), hostname);
  const chunked = !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length');
  const head = Object.entries({
    host: `${hostname}:${port}`,
    connection: 'close',
    ...headers,
    ...(chunked ? { 'transfer-encoding': 'chunked' } : {}),
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');

  let sent = 0;
  let answered = false;
  /** Bytes from the server, whether Node read them (`data`) or `queuedBytes` did. */
  let receive!: (data: Buffer) => void;
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    let received = Buffer.alloc(0);
    let sentBeforeAnswer = -1;
    receive = (data) => {
      if (answered || data.length === 0) return;
      if (sentBeforeAnswer < 0) sentBeforeAnswer = sent;
      received = Buffer.concat([received, data]);
      const parsed = parseResponse(received);
      if (parsed) {
        answered = true;
        resolve({ ...parsed, sentBeforeAnswer });
        socket.destroy();
      }
    };
    socket.on('data', receive);
    socket.on('error', (error) => answered || reject(error));
    socket.on('close', () => {
      if (answered) return;
      // An answer delimited by the close itself (no length, not chunked).
      const head = received.indexOf('\r\n\r\n');
      if (head < 0) return reject(new Error(`closed without an answer after ${sent} body bytes`));
      answered = true;
      const status = Number(received.subarray(0, head).toString('latin1').split(' ')[1]);
      resolve({ status, body: received.subarray(head + 4).toString('utf8'), sentBeforeAnswer });
    });
  });
  // The test decides what to do with the answer; an unawaited rejection must not fail the run.
  answer.catch(() => {});

  /**
   * Every write goes through here. A failed one (the server reset the connection) first reads
   * what the kernel holds for this socket: Node destroys the socket right after this callback.
   */
  const send = (bytes: string | Buffer) =>
    new Promise<void>((resolve) => {
      socket.write(bytes, (error) => {
        if (error && !answered) receive(queuedBytes(socket));
        resolve();
      });
    });
  void send(`POST ${path} HTTP/1.1\r\n${head}\r\n`);

  const write = (data: string | Buffer) => {
    if (answered || socket.destroyed) return Promise.resolve();
    sent += Buffer.byteLength(data);
    const framed = chunked
      ? Buffer.concat([Buffer.from(`${Buffer.byteLength(data).toString(16)}\r\n`), Buffer.from(data), Buffer.from('\r\n')])
      : data;
    return send(framed);
  };

  return {
    answer,
    /** Body bytes written so far. */
    get sent() {
      return sent;
    },
    get answered() {
      return answered;
    },
    /** The connection is gone (answered, reset, or closed by either side): `write` sends nothing more. */
    get closed() {
      return socket.destroyed;
    },
    write,
    /** The end of a chunked body (nothing to send for a `Content-Length` one). */
    end: () => (chunked && !answered && !socket.destroyed ? send('0\r\n\r\n') : Promise.resolve()),
    close: () => socket.destroy(),
  };
}

export type RawUpload = ReturnType<typeof rawUpload>;

/**
 * The bytes already in `socket`'s receive queue, read at once, before Node closes it.
 *
 * A server that answers a body it refuses (413) and closes the connection with the rest of the
 * body unread makes its kernel reset the connection (RFC 1122 4.2.2.13: a close with received
 * data pending sends a RST; Node's HTTP server closes right after a `Connection: close`
 * answer). The answer reaches this side's receive queue before the reset, and Linux keeps
 * queued bytes readable after one. But Node destroys a socket whose write fails (EPIPE,
 * ECONNRESET) before its event loop has read them, so a sender still writing when the reset
 * lands lost the answer it had been given (under CPU load, where the loop runs late). Reading
 * the queue synchronously in the failed write's callback, before that destroy, keeps what the
 * server said and only that: a connection closed without an answer yields nothing here, and
 * `answer` still rejects. The descriptor is Node's own (`_handle.fd`; Linux, as /proc is).
 */
function queuedBytes(socket: Socket): Buffer {
  const fd = (socket as unknown as { _handle?: { fd?: number } | null })._handle?.fd;
  if (fd === undefined || fd < 0) return Buffer.alloc(0);
  const parts: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    let size: number;
    try {
      size = readSync(fd, buffer);
    } catch {
      // EAGAIN (nothing queued) or ECONNRESET (the queue is read: the reset is reported after it).
      break;
    }
    if (size === 0) break;
    parts.push(Buffer.from(buffer.subarray(0, size)));
  }
  return Buffer.concat(parts);
}

/** Status and body of a complete HTTP/1.1 response in `data`, or `undefined` while more is to come. */
function parseResponse(data: Buffer): { status: number; body: string } | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const header = (name: string) =>
    lines
      .find((line) => line.toLowerCase().startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim()
      .toLowerCase();
  const rest = data.subarray(end + 4);
  const length = header('content-length');
  if (length !== undefined)
    return rest.length >= Number(length) ? { status, body: rest.subarray(0, Number(length)).toString('utf8') } : undefined;
  if (header('transfer-encoding') !== 'chunked') return undefined;
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const sizeEnd = rest.indexOf('\r\n', at);
    if (sizeEnd < 0) return undefined;
    const size = Number.parseInt(rest.subarray(at, sizeEnd).toString('latin1'), 16);
    if (size === 0) return { status, body: Buffer.concat(parts).toString('utf8') };
    if (rest.length < sizeEnd + 2 + size + 2) return undefined;
    parts.push(rest.subarray(sizeEnd + 2, sizeEnd + 2 + size));
    at = sizeEnd + 2 + size + 2;
  }
}

import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  body: string;
  /** Body bytes written to the socket when the first byte of the answer arrived. */
  sentBeforeAnswer: number;
}

/**
 * A POST over a raw socket, so a test controls exactly what reaches the server and when:
 * a body trickled, cut short of its `Content-Length`, or stalled. Chunked framing when no
 * `content-length` header is given. `answer` settles on the first complete response (or
 * rejects if the server closes without one); `send` writes body bytes, `end` the final chunk.
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
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);

  let sent = 0;
  let answered = false;
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    let received = Buffer.alloc(0);
    let sentBeforeAnswer = -1;
    socket.on('data', (data: Buffer) => {
      if (sentBeforeAnswer < 0) sentBeforeAnswer = sent;
      received = Buffer.concat([received, data]);
      const parsed = parseResponse(received);
      if (parsed && !answered) {
        answered = true;
        resolve({ ...parsed, sentBeforeAnswer });
        socket.destroy();
      }
    });
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

  const write = (data: string | Buffer) =>
    new Promise<void>((resolve) => {
      if (answered || socket.destroyed) return resolve();
      sent += Buffer.byteLength(data);
      const framed = chunked
        ? Buffer.concat([Buffer.from(`${Buffer.byteLength(data).toString(16)}\r\n`), Buffer.from(data), Buffer.from('\r\n')])
        : data;
      socket.write(framed, () => resolve());
    });

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
    end: () =>
      chunked && !answered && !socket.destroyed
        ? new Promise<void>((resolve) => socket.write('0\r\n\r\n', () => resolve()))
        : Promise.resolve(),
    close: () => socket.destroy(),
  };
}

export type RawUpload = ReturnType<typeof rawUpload>;

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

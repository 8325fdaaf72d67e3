import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `chunks` to a fresh TCP connection (a string each, `null` = stop writing and keep
 * the socket open) and reads until the server closes it. For requests `fetch` cannot send:
 * protocol garbage, stalled bodies, lying lengths.
 */
export function rawExchange(url: string, chunks: Array<string | Buffer>, timeoutMs = 10_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const got: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; got ${Buffer.concat(got).toString('latin1').slice(0, 200)}`));
    }, timeoutMs);
    socket.on('data', (c) => got.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(got).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({
        status: Number(statusLine.split(' ')[1] ?? 0),
        headers,
        body: split < 0 ? '' : text.slice(split + 4),
      });
    });
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
    });
  });
}

/** Asserts the contract's error body, with `request_id` equal to the header. */
export function jsonError(a: RawAnswer): { error: string; message: string; next: string; request_id: string } {
  const body = JSON.parse(a.body);
  if (typeof body.error !== 'string' || typeof body.message !== 'string' || typeof body.next !== 'string') {
    throw new Error(`not an error body: ${a.body}`);
  }
  if (body.request_id !== a.headers['x-request-id'])
    throw new Error(`request_id ${body.request_id} != header ${a.headers['x-request-id']}`);
  return body;
}

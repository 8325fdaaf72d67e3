/**
 * An output link whose body breaks off half-way (a reset connection, a proxy giving up): the
 * buffered download is a typed `ConnectionError`, as a failed request is, never a bare
 * `TypeError: terminated` from the runtime.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, type Generation, MediaGenClient } from '../src/index';

describe('generations.download: a body cut off half-way', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    // Promises 100 000 bytes, sends 10, then drops the connection.
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '100000' });
      res.write(Buffer.alloc(10), () => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const generation = (): Generation =>
    ({
      generation_id: 'g1',
      status: 'completed',
      output_url: `${base}/api/v1/output/g1/4102444800/c2ln/0/a-1.png`,
      output_urls: [`${base}/api/v1/output/g1/4102444800/c2ln/0/a-1.png`],
    }) as Generation;

  it('buffered: a ConnectionError', async () => {
    const client = new MediaGenClient({ apiKey: 'svc_live_cut_body', baseUrl: base, maxRetries: 0 });
    const error = await client.generations.download(generation()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe('CONNECTION_ERROR');
  });
});

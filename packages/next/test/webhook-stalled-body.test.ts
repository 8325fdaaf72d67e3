import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createWebhookHandler } from '../src';
import { payload, SECRET } from './support/delivery';

/**
 * Issue 19: Next's Node server hands a route the Node request itself as the body
 * (`NextRequestAdapter.fromNodeNextRequest`), which undici reads through its async iterator.
 * Cancelling such a body settles only after its pending read, so a receiver that awaited the
 * cancel at its deadline waited for bytes a stalled sender never sends: no answer at all.
 */
describe('createWebhookHandler with a body that stalls, handed over as Next hands it', () => {
  let origin: string;
  let close: () => void;
  const onEvent = vi.fn();

  beforeAll(async () => {
    const POST = createWebhookHandler({ secrets: SECRET, onEvent, deadlineMs: 300 });
    const server = createServer(async (req, res) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const request = new Request(`${origin}${req.url}`, {
        method: req.method,
        headers,
        body: req as unknown as BodyInit,
        duplex: 'half',
      } as RequestInit);
      const answer = await POST(request);
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(await answer.text());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => {
      server.closeAllConnections();
      server.close();
    };
  });
  afterAll(() => close?.());

  it('a Content-Length larger than the body sent, then silence, is answered 503 WEBHOOK_BODY_TIMEOUT', async () => {
    const raw = JSON.stringify(payload());
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${origin}/api/webhooks/mediagen`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(raw.length + 64),
          'x-service-signature': `sha256=${'0'.repeat(64)}`,
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => void (body += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      });
      req.on('error', reject);
      // The whole body but short of its declared length, then nothing: the sender stalls.
      req.write(raw);
    });
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'WEBHOOK_BODY_TIMEOUT', request_id: null });
    expect(onEvent).not.toHaveBeenCalled();
  }, 20_000);
});

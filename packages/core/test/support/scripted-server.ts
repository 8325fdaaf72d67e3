import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  /** `url` without its query. */
  path: string;
  /** When it arrived (ms since epoch). */
  at: number;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Responder = (req: RecordedRequest, res: ServerResponse, index: number) => unknown;

/** A real HTTP server on a free port whose answers each test scripts, recording every request. */
export async function startScriptedServer(responder: Responder) {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = req.url ?? '';
    const recorded = {
      method: req.method ?? '',
      url,
      path: url.split('?')[0]!,
      at: Date.now(),
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
    };
    requests.push(recorded);
    await responder(recorded, res, requests.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON with the service's request-id convention. */
export function json(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const requestId = (body.request_id as string | undefined) ?? `req_${Math.random().toString(36).slice(2, 10)}`;
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId, ...headers });
  res.end(JSON.stringify({ ...body, request_id: requestId }));
}

export function errorBody(code: string, extra: Record<string, unknown> = {}) {
  return { error: code, message: `${code} happened`, next: `do something about ${code}`, ...extra };
}

export const generationBody = (status: string, extra: Record<string, unknown> = {}) => ({
  generation_id: '7b0c6f8e-0000-4000-8000-000000000001',
  status,
  model: 'image-fast',
  output_url: status === 'completed' ? 'http://x/api/v1/output/a/1/s/0/a.png' : null,
  output_urls: status === 'completed' ? ['http://x/api/v1/output/a/1/s/0/a.png'] : null,
  credits_used: 4,
  duration_ms: status === 'completed' ? 1200 : null,
  created_at: '2026-11-22T00:00:00.000Z',
  completed_at: status === 'completed' ? '2026-11-22T00:00:01.200Z' : null,
  ...extra,
});

// The smallest honest stand-in for GET /api/v1/generations/{id}: a fixed completed generation,
// with the X-Request-Id header the spec requires. Runs in its own process so that serving
// does not share the event loop (or the core) with the client being measured.
import { createServer } from 'node:http';

const id = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
let n = 0;
const server = createServer((_req, res) => {
  const requestId = `req_${(++n).toString(36)}`;
  const body = JSON.stringify({
    generation_id: id,
    status: 'completed',
    model: 'image-fast',
    output_url: `http://127.0.0.1/api/v1/output/${id}/1999999999/sig/0/image.png`,
    output_urls: [`http://127.0.0.1/api/v1/output/${id}/1999999999/sig/0/image.png`],
    credits_used: 4,
    duration_ms: 6120,
    created_at: '2025-01-01T00:00:00.000Z',
    completed_at: '2025-01-01T00:00:06.120Z',
    request_id: requestId,
  });
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
  });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ ready: true, port: server.address().port });
});
process.on('disconnect', () => process.exit(0));

// A stand-in service for the reconciler row: every generation is still `processing`, so the
// ledger keeps following all of them. Counts status reads and the shortest gap between two reads
// of the same generation (the contract's interval must hold per generation), and answers the
// model list (one image model) so the ledger finds each model's interval. `gaps` counts the gaps
// measured: with none (no generation read twice) `minGapMs` is null, a row that measured nothing.
import { createServer } from 'node:http';

const last = new Map();
let reads = 0;
let minGapMs = Number.POSITIVE_INFINITY;
let gaps = 0;
let n = 0;
const models = JSON.stringify({
  tier: 'ultimate',
  credits_balance: 1,
  rate_limit: { per_minute: 600, max_concurrent: 20 },
  request_id: 'req_models',
  models: [{ slug: 'image-fast', name: 'Image Fast', category: 'image', kind: 'image', params: {} }],
});

const server = createServer((req, res) => {
  const requestId = `req_${(++n).toString(36)}`;
  let body;
  if (req.url === '/api/v1/models') body = models;
  else {
    const id = decodeURIComponent(req.url.split('/').pop());
    const t = performance.now();
    const before = last.get(id);
    if (before !== undefined) {
      minGapMs = Math.min(minGapMs, t - before);
      gaps++;
    }
    last.set(id, t);
    reads++;
    body = JSON.stringify({
      generation_id: id,
      status: 'processing',
      model: 'image-fast',
      output_url: null,
      output_urls: null,
      credits_used: 4,
      duration_ms: null,
      created_at: '2025-01-01T00:00:00.000Z',
      completed_at: null,
      request_id: requestId,
    });
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-request-id': requestId });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ ready: true, port: server.address().port }));
process.on('message', (msg) => {
  if (msg.cmd === 'stats')
    process.send({ id: msg.id, result: { reads, gaps, minGapMs: gaps === 0 ? null : minGapMs, followed: last.size } });
  else process.send({ id: msg.id, error: `unknown command ${msg.cmd}` });
});
process.on('disconnect', () => process.exit(0));

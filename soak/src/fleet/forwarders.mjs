// Two HTTP forwarders the soak puts on the fleet's paths:
// - the service meter, between the instances and the emulator: counts the service's answers by
//   status (the "0 x 429 from the service" is counted here, where they are answered);
// - the delivery chaos, between the emulator's webhook deliveries and the balancer: slow and
//   failed deliveries, decided by the delivery id (the same attempt always meets the same fate),
//   so the emulator's retries, the receiver's 5 s window and the shared de-dup are all exercised.
import { createHash } from 'node:crypto';
import { createServer, request } from 'node:http';

function forward(req, res, target, onAnswer = () => {}) {
  const url = new URL(req.url, target);
  const upstream = request(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answer) => {
    onAnswer(answer.statusCode);
    res.writeHead(answer.statusCode, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}

async function listen(server, port) {
  server.keepAliveTimeout = 5_000;
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

/** Counts the service's answers to the instances: `statuses` by status, `rateLimited` with when and what. */
export async function startServiceMeter({ port, target }) {
  const statuses = {};
  const rateLimited = [];
  const server = createServer((req, res) =>
    forward(req, res, target, (status) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status === 429) rateLimited.push({ at: Date.now(), what: `${req.method} ${req.url}` });
    }),
  );
  return { ...(await listen(server, port)), statuses, rateLimited };
}

/** The fate of one delivery attempt, from its id: 10 % failed (503), 5 % past the 5 s window, 10 % slow (1.5 s). */
export function deliveryFate(deliveryId) {
  const roll = createHash('sha256').update(String(deliveryId)).digest()[0] / 256;
  return roll < 0.1 ? 'failed' : roll < 0.15 ? 'timeout' : roll < 0.25 ? 'slow' : 'ok';
}

export async function startDeliveryChaos({ port, target }) {
  const counts = { attempts: 0, failed: 0, timeout: 0, slow: 0, ok: 0, answered: {} };
  const server = createServer((req, res) => {
    counts.attempts++;
    const fate = deliveryFate(req.headers['x-service-delivery-id']);
    counts[fate]++;
    if (fate === 'failed') {
      req.resume();
      res.writeHead(503, { 'content-type': 'text/plain' }).end('chaos: delivery failed');
      return;
    }
    // Past the window the service gives up on this attempt and retries; the late one still
    // reaches an instance, whose handler then runs once (the retry is de-duplicated).
    const delay = fate === 'timeout' ? 5_500 : fate === 'slow' ? 1_500 : 0;
    const body = [];
    req.on('data', (chunk) => body.push(chunk));
    req.on('end', () =>
      setTimeout(() => {
        const url = new URL(req.url, target);
        const upstream = request(url, { method: 'POST', headers: { ...req.headers, host: url.host } }, (answer) => {
          counts.answered[answer.statusCode] = (counts.answered[answer.statusCode] ?? 0) + 1;
          if (res.destroyed) return answer.resume();
          res.writeHead(answer.statusCode, answer.headers);
          answer.pipe(res);
        });
        upstream.on('error', () => res.destroy());
        upstream.end(Buffer.concat(body));
      }, delay),
    );
  });
  return { ...(await listen(server, port)), counts };
}

// The load generator, in its own process: autocannon against the emulator. Each request
// rotates over `auth` (API keys) and, for status reads, over `targets` ([key, id] pairs).
import autocannon from 'autocannon';

function load(opts) {
  const { url, method = 'GET', path, body, keys = [], targets = [], connections = 10, duration, amount, overallRate } = opts;
  let n = 0;
  const request = {
    method,
    path: path ?? '/',
    setupRequest(req) {
      const i = n++;
      const headers = { ...req.headers, accept: 'application/json' };
      if (targets.length) {
        const [key, id] = targets[i % targets.length];
        headers.authorization = `Bearer ${key}`;
        return { ...req, method: 'GET', path: `/api/v1/generations/${id}`, headers };
      }
      headers.authorization = `Bearer ${keys[i % keys.length]}`;
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        return { ...req, headers, body: JSON.stringify({ ...body, prompt: `${body.prompt} #${i}` }) };
      }
      return { ...req, headers };
    },
  };
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections,
        pipelining: 1,
        ...(amount ? { amount } : { duration }),
        ...(overallRate ? { overallRate } : {}),
        requests: [request],
        timeout: 10,
      },
      (err, r) => {
        if (err) return reject(err);
        const ok = r['2xx'];
        const seconds = r.duration;
        resolve({
          seconds,
          sent: r.requests.sent,
          ok,
          okPerSec: ok / seconds,
          non2xx: r.non2xx,
          errors: r.errors,
          timeouts: r.timeouts,
          statusCodeStats: r.statusCodeStats,
          latencyMs: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
        });
      },
    );
  });
}

process.on('message', async (msg) => {
  try {
    if (msg.cmd === 'load') process.send({ id: msg.id, result: await load(msg.opts) });
    else process.send({ id: msg.id, error: `unknown command ${msg.cmd}` });
  } catch (e) {
    process.send({ id: msg.id, error: String(e?.stack ?? e) });
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });

// Rows: the handler's event streams at scale. (1) 10,000 open streams on one instance: heap and
// RSS per open stream (the instance in a child process, measured after GC; the 10,000 clients
// in this process). (2) One webhook to 1,000 streams following the same user's feed: time from
// posting the signed webhook to each stream receiving the completed state, p50/p99 over rounds,
// after one warm-up round (reported apart). (3) The same across two instances sharing events
// through Redis: streams on B, webhook to A.
import { fork } from 'node:child_process';
import { request } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { signWebhook } from '@mediagen/core';
import { startEmulator } from '@mediagen/emulator';

// One account per row: the emulator allows 20 generations in flight per account, and here none finishes by itself.
const KEYS = ['svc_live_bench_streams_mem', 'svc_live_bench_streams_fan', 'svc_live_bench_streams_redis'];
const SECRET = 'whsec_bench_streams';
const MEMORY_TARGET_BYTES = 10 * 1024;
const FANOUT_TARGET_MS = 50;
const REDIS_TARGET_MS = 100;
/** Streams opened and closed before the memory row's baseline, so it measures an instance that has served some. */
const WARM_STREAMS = 200;

function percentile(sorted, p) {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function instance(emulatorUrl, key, extraEnv = {}) {
  const child = fork(new URL('./child/stream-server.mjs', import.meta.url), [], {
    execArgv: ['--expose-gc'],
    env: { ...process.env, EMULATOR_URL: emulatorUrl, API_KEY: key, SECRET, ...extraEnv },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`stream server exited ${code}`)));
  });
  const ask = () =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send('mem');
    });
  return { origin: `http://127.0.0.1:${port}`, ask, close: () => child.kill() };
}

async function submit(origin, uid, prompt) {
  const res = await fetch(`${origin}/api/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `uid=${uid}` },
    body: JSON.stringify({ model: 'image-fast', prompt }),
  });
  if (res.status !== 202) throw new Error(`submit answered ${res.status}`);
  return (await res.json()).generation_id;
}

async function complete(origin, id) {
  const body = JSON.stringify({
    generation_id: id,
    status: 'completed',
    model: 'image-fast',
    output_url: `https://media.example/${id}.png`,
    output_urls: [`https://media.example/${id}.png`],
    credits_charged: 4,
    duration_ms: 1000,
    completed_at: new Date().toISOString(),
  });
  const res = await fetch(`${origin}/api/webhooks/mediagen`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-event': 'generation.completed',
      'x-service-delivery-id': crypto.randomUUID(),
      'x-service-signature': await signWebhook(body, SECRET),
    },
    body,
  });
  if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
}

/** An open event stream read line by line: `onData(generation)` per data event. */
function openStream(origin, path, uid, onData) {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { agent: false, headers: { cookie: `uid=${uid}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk) => {
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data) onData(JSON.parse(data.slice(6)));
          end = buffer.indexOf('\n\n');
        }
      });
      res.on('error', () => {});
      resolve({ close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

async function inBatches(n, size, make) {
  const out = [];
  for (let i = 0; i < n; i += size) out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - i) }, (_, j) => make(i + j)))));
  return out;
}

async function memoryRow(emulatorUrl, n) {
  const app = await instance(emulatorUrl, KEYS[0]);
  try {
    const ids = await inBatches(10, 10, (i) => submit(app.origin, 'mem', `memory ${i}`));
    // Warm the code paths, then measure from an idle instance that has followed them once.
    const warm = await inBatches(WARM_STREAMS, 50, (i) =>
      openStream(app.origin, `/api/generations/${ids[i % ids.length]}/events`, 'mem', () => {}),
    );
    for (const s of warm) s.close();
    while ((await app.ask()).open > 0) await new Promise((r) => setTimeout(r, 50));
    const before = (await app.ask()).mem;
    let first = 0;
    const streams = await inBatches(n, 250, (i) =>
      openStream(app.origin, `/api/generations/${ids[i % ids.length]}/events`, 'mem', () => first++),
    );
    while (first < n) await new Promise((r) => setTimeout(r, 50));
    const after = await app.ask();
    for (const s of streams) s.close();
    return {
      open: after.open,
      heapPerStream: (after.mem.heapUsed - before.heapUsed) / n,
      rssPerStream: (after.mem.rss - before.rss) / n,
      externalPerStream: (after.mem.external + after.mem.arrayBuffers - before.external - before.arrayBuffers) / n,
      rssMb: after.mem.rss / 2 ** 20,
    };
  } finally {
    app.close();
  }
}

/**
 * Rounds of: submit on `source`, every feed on `streams` hears it pending, one webhook to `source`,
 * each feed's delay to completed. One round more than asked, the first a warm-up: on a fresh
 * instance V8 has not yet optimised Node's socket write path for a thousand writes at once, and
 * that first round alone sets a p99 over ten. Returns each round's delays.
 */
async function fanoutRounds(source, streamsOn, n, rounds) {
  const uid = `fan-${crypto.randomUUID()}`;
  const pending = new Map();
  const completedAt = new Map();
  const feeds = await inBatches(n, 250, (i) =>
    openStream(streamsOn.origin, '/api/generations/events', uid, (g) => {
      if (g.status === 'pending') pending.set(g.generation_id, (pending.get(g.generation_id) ?? 0) + 1);
      if (g.status === 'completed') completedAt.get(g.generation_id)?.push(performance.now());
      void i;
    }),
  );
  const perRound = [];
  try {
    for (let r = 0; r <= rounds; r++) {
      const id = await submit(source.origin, uid, `fan-out ${r}`);
      completedAt.set(id, []);
      while ((pending.get(id) ?? 0) < n) await new Promise((res) => setTimeout(res, 20));
      const t0 = performance.now();
      await complete(source.origin, id);
      while (completedAt.get(id).length < n) await new Promise((res) => setTimeout(res, 5));
      perRound.push(completedAt.get(id).map((t) => t - t0));
    }
  } finally {
    for (const f of feeds) f.close();
  }
  return perRound;
}

/** p50/p99/max over the rounds after the warm-up; the warm-up round's own; and, as measured before the warm-up was added, over the first `rounds`. */
function fanoutFigures(perRound) {
  const figures = (delays) => {
    const sorted = delays.sort((a, b) => a - b);
    return { n: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) };
  };
  return {
    ...figures(perRound.slice(1).flat()),
    /** Each round's last feed, warm-up first: where a p99 comes from. */
    lastPerRound: perRound.map((delays) => Math.round(Math.max(...delays))),
    warmUp: figures([...perRound[0]]),
    unwarmed: figures(perRound.slice(0, -1).flat()),
  };
}

/** Where the load stood when a row began: its absolute times depend on it. */
const loadNote = () => `load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores at the start of this row`;

const fanoutNote = (setup, rounds, load) =>
  `${setup}; 1,000 feeds of one user over real sockets (agent: false), read in the bench process; delay = from posting the signed webhook to each feed's completed event. One warm-up round first, not counted: a fresh instance's first fan-out runs before V8 has optimised Node's socket write path for it. Its figures are in the row; raw.unwarmed in results.json has the p99 over the first ${rounds} rounds, warm-up counted, as measured before; raw.*.lastPerRound each round's slowest feed; ${load}.`;

export async function run({ quick }) {
  const emulator = await startEmulator({
    port: 0,
    // A thousand times the service's lengths: nothing finishes unless a webhook says so.
    config: {
      timeScale: 1000,
      accounts: KEYS.map((key, i) => ({ id: `acct_streams_${i}`, tier: 'ultimate', balance: 10_000_000, keys: [{ key }] })),
    },
  });
  const n = quick ? 2_000 : 10_000;
  const fan = 1_000;
  const rounds = quick ? 3 : 10;
  const rows = [];
  const raw = {};
  try {
    const loadBeforeMemory = loadNote();
    const memory = await memoryRow(emulator.url, n);
    raw.memory = memory;
    const perStream = memory.heapPerStream + Math.max(0, memory.externalPerStream);
    rows.push({
      id: 'streams-memory',
      what: `Streams: ${n.toLocaleString('en')} open event streams on one instance, memory per stream`,
      ours: `${(perStream / 1024).toFixed(2)} KB per stream (heap ${(memory.heapPerStream / 1024).toFixed(2)} KB + buffers ${(memory.externalPerStream / 1024).toFixed(2)} KB); RSS +${(memory.rssPerStream / 1024).toFixed(2)} KB per stream, ${memory.rssMb.toFixed(0)} MB in all; ${memory.open} open`,
      peers: {},
      ratio: `${(perStream / MEMORY_TARGET_BYTES).toFixed(2)}× budget`,
      note: `GET /generations/:id/events over 10 pending generations, one real socket each from the bench process; the instance in a child process (createNodeHandler on node:http); heap and buffers after 3 full GCs, less those of the same instance idle after ${WARM_STREAMS} warm-up streams; ${loadBeforeMemory}.`,
      target: '< 10 KB per open stream (heap + buffers, after GC)',
      status: perStream < MEMORY_TARGET_BYTES ? 'pass' : 'miss',
    });

    const loadBeforeFanout = loadNote();
    const one = await instance(emulator.url, KEYS[1]);
    try {
      raw.fanout = fanoutFigures(await fanoutRounds(one, one, fan, rounds));
    } finally {
      one.close();
    }
    rows.push({
      id: 'streams-fanout',
      what: `Streams: one webhook to ${fan.toLocaleString('en')} streams on the same user's feed (one instance), ${rounds} rounds after a warm-up`,
      ours: `p50 ${raw.fanout.p50.toFixed(1)} ms, p99 ${raw.fanout.p99.toFixed(1)} ms, max ${raw.fanout.max.toFixed(1)} ms (webhook posted to the last stream's event); warm-up round: p50 ${raw.fanout.warmUp.p50.toFixed(1)} ms, p99 ${raw.fanout.warmUp.p99.toFixed(1)} ms`,
      note: fanoutNote('one instance in a child process (createNodeHandler on node:http, in-process events)', rounds, loadBeforeFanout),
      peers: {},
      ratio: `${(raw.fanout.p99 / FANOUT_TARGET_MS).toFixed(2)}× target`,
      target: `p99 < ${FANOUT_TARGET_MS} ms`,
      status: raw.fanout.p99 < FANOUT_TARGET_MS ? 'pass' : 'miss',
    });

    const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const bus = crypto.randomUUID();
    const loadBeforeRedis = loadNote();
    const a = await instance(emulator.url, KEYS[2], { REDIS_URL: redisUrl, BUS: bus });
    const b = await instance(emulator.url, KEYS[2], { REDIS_URL: redisUrl, BUS: bus });
    try {
      raw.redis = fanoutFigures(await fanoutRounds(a, b, fan, rounds));
    } finally {
      a.close();
      b.close();
    }
    rows.push({
      id: 'streams-redis',
      what: `Streams: one webhook on instance A to ${fan.toLocaleString('en')} feed streams on instance B, through Redis, ${rounds} rounds after a warm-up`,
      ours: `p50 ${raw.redis.p50.toFixed(1)} ms, p99 ${raw.redis.p99.toFixed(1)} ms, max ${raw.redis.max.toFixed(1)} ms; warm-up round: p50 ${raw.redis.warmUp.p50.toFixed(1)} ms, p99 ${raw.redis.warmUp.p99.toFixed(1)} ms`,
      note: fanoutNote(
        'two instances in child processes sharing events through @mediagen/redis RedisGenerationEvents (one subscriber connection each); the webhook to A, the feeds on B',
        rounds,
        loadBeforeRedis,
      ),
      peers: {},
      ratio: `${(raw.redis.p99 / REDIS_TARGET_MS).toFixed(2)}× target`,
      target: `p99 < ${REDIS_TARGET_MS} ms`,
      status: raw.redis.p99 < REDIS_TARGET_MS ? 'pass' : 'miss',
    });
  } finally {
    await emulator.close();
  }
  return { rows, raw };
}

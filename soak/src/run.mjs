// `pnpm soak [--quick]`: proof under load and faults (issue 13). Exits 1 if an invariant fails.
//  1. N submits through @mediagen/core with every fault kind injected through /__emulator/faults,
//     checked against the emulator's ledger: exactly N generations created and billed, none twice.
//  2. Webhooks to two instances sharing Redis (de-dup, gate, wait/webhook race), 30 % of
//     deliveries failing in the handler: every completed generation recorded exactly once, the
//     rest recovered by polling; the instances together never exceed max_concurrent.
//  3. The instances' Redis restarted mid-run (its data lost): documented fail-closed behaviour.
//  4. The report.
// Parts 1 and 2 run side by side on two accounts (a 503 asks for a 60 s wait, which dominates).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { MediaGenClient } from '@mediagen/core';
import { startEmulator } from '@mediagen/emulator';
import { Redis } from 'ioredis';
import { freePort } from './ports.mjs';
import { startOwnRedis } from './redis-server.mjs';

const quick = process.argv.includes('--quick');
const N1 = quick ? 200 : 1_000;
const N2 = quick ? 100 : 400;
const FAULTS = [
  // [label, fault, count (quick), count (full)]
  ['500 before enqueue', { status: 500, when: 'before' }, 10, 50],
  ['500 after enqueue (billed, answer lost)', { status: 500, when: 'after' }, 10, 50],
  ['connection reset after enqueue', { reset: true, when: 'after' }, 10, 50],
  ['503', { status: 503 }, 2, 5],
  ['409 in flight', { status: 409, code: 'IDEMPOTENT_REQUEST_IN_FLIGHT' }, 8, 40],
  ['429 with Retry-After', { status: 429, code: 'RATE_LIMIT' }, 8, 40],
];
const SECRET = 'whsec_soak';
const BALANCE = 100_000;
const PRICE = 4; // image-fast, one image
const started = Date.now();
const log = (msg) => process.stderr.write(`soak ${((Date.now() - started) / 1000).toFixed(1)}s: ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
};

const booksUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const books = new Redis(booksUrl);
const BOOKS = `mediagen-soak:${randomUUID()}:`;
const [redisPort, emulatorPort, portA, portB] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
const redis = await startOwnRedis(redisPort);
const emulator = await startEmulator({
  port: emulatorPort,
  config: {
    timeScale: 0.01,
    accounts: [
      { id: 'acct_faults', tier: 'ultimate', balance: BALANCE, keys: [{ key: 'svc_live_soak_faults' }] },
      {
        id: 'acct_multi',
        tier: 'pro',
        balance: BALANCE,
        keys: [{ key: 'svc_live_soak_multi' }],
        webhooks: [portA, portB].map((port) => ({ url: `http://127.0.0.1:${port}/api/webhooks/mediagen`, secret: SECRET, enabled: true })),
      },
    ],
  },
});
const control = async (path, init) => (await fetch(`${emulator.url}/__emulator/${path}`, init)).json();
const children = [];
let exitCode = 1;
try {
  const instances = await Promise.all(
    [
      ['A', portA],
      ['B', portB],
    ].map(([name, port]) =>
      startInstance({
        INSTANCE: name,
        PORT: String(port),
        REDIS_URL: redis.url,
        PREFIX: 'soak:',
        BOOKS_URL: booksUrl,
        BOOKS_PREFIX: BOOKS,
        API_KEY: 'svc_live_soak_multi',
        BASE_URL: emulator.url,
        SECRET,
        // The longest delivery chain here: the emulator's scaled retry waits plus three real 5 s windows.
        RECOVERY_MS: '16000',
      }),
    ),
  );
  log(`emulator ${emulator.url}, Redis ${redis.url}, instances ${instances.map((i) => i.url).join(' ')}`);
  const [part1, part2] = await Promise.all([faultsPart(), instancesPart(instances)]);
  report(part1, part2);
  exitCode = failures.length === 0 ? 0 : 1;
} catch (error) {
  console.error(error);
} finally {
  await Promise.all(children.map((stop) => stop()));
  await emulator.close();
  redis.close();
  await cleanBooks();
  books.disconnect();
}
process.exit(exitCode);

async function faultsPart() {
  let retries = 0;
  const injected = {};
  const queue = FAULTS.flatMap(([label, fault, q, f]) => Array.from({ length: quick ? q : f }, () => [label, fault]));
  queue.sort(() => Math.random() - 0.5);
  // The 503s first: each asks for a 60 s wait, which then overlaps the rest of the run.
  queue.sort((a, b) => (b[1].status === 503) - (a[1].status === 503));
  // Spread over the run: before every `every`-th submit request, one fault is injected, which
  // the next fresh request takes (replays of a lost answer take none).
  const every = Math.max(1, Math.floor(N1 / queue.length) - 1);
  let requests = 0;
  const injectingFetch = async (input, init) => {
    if (init?.method === 'POST' && requests++ % every === 0 && queue.length > 0) {
      const [label, fault] = queue.shift();
      await control('faults', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint: 'generate', count: 1, ...fault }),
      });
      injected[label] = (injected[label] ?? 0) + 1;
    }
    return fetch(input, init);
  };
  const client = new MediaGenClient({
    apiKey: 'svc_live_soak_faults',
    baseUrl: emulator.url,
    gate: true,
    fetch: injectingFetch,
    onRetry: () => retries++,
  });
  let resubmits = 0;
  const results = await Promise.all(
    Array.from({ length: N1 }, async (_, i) => {
      const idempotencyKey = `faults-${i}-${randomUUID()}`;
      // An app resends a failed submit with the same key: never a second charge.
      for (let attempt = 0; attempt < 10; attempt++) {
        try {
          const g = await client.generations.run({ model: 'image-fast', prompt: `soak ${i}` }, { idempotencyKey, intervalMs: 100 });
          return g.generation_id;
        } catch (error) {
          resubmits++;
          if (!error?.retryable) return `error ${error?.code}`;
        }
      }
      return 'gave up';
    }),
  );
  // Faults no attempt took (the run ended first) are not counted as injected.
  const left = (await control('faults')).faults ?? [];
  const unconsumed = left.reduce((sum, fault) => sum + fault.count, 0);
  for (const fault of left) {
    const label = FAULTS.find(([, f]) => Object.entries(f).every(([k, v]) => fault[k] === v))?.[0];
    if (label) injected[label] -= fault.count;
  }
  await control('faults', { method: 'DELETE' });
  const account = await control('accounts/acct_faults');
  const reserves = account.ledger.filter((row) => row.type === 'reserve');
  const billedIds = new Set(reserves.map((row) => row.generation_id));
  const okIds = new Set(results.filter((r) => !r.startsWith('error') && r !== 'gave up'));
  const part = {
    submits: N1,
    injected,
    unconsumed,
    retries,
    resubmits,
    completed: okIds.size,
    billed: reserves.length,
    duplicates: reserves.length - billedIds.size,
    missing: [...okIds].filter((id) => !billedIds.has(id)).length,
    balance: account.balance,
    expectedBalance: BALANCE - N1 * PRICE,
  };
  check(
    okIds.size === N1,
    `part 1: ${N1 - okIds.size} submits did not complete (${results.filter((r) => r.startsWith('error') || r === 'gave up').slice(0, 3)})`,
  );
  check(part.billed === N1, `part 1: ${part.billed} generations billed, expected exactly ${N1}`);
  check(part.duplicates === 0, `part 1: ${part.duplicates} generations billed twice`);
  check(part.missing === 0, `part 1: ${part.missing} completed generations missing from the ledger`);
  check(part.balance === part.expectedBalance, `part 1: balance ${part.balance}, expected ${part.expectedBalance}`);
  return part;
}

async function instancesPart(instances) {
  const limits = (await control('accounts/acct_multi')).limits ?? {};
  const maxConcurrent = limits.max_concurrent ?? 5;
  let peakBefore = 0;
  let peakAfter = 0;
  let restarted = false;
  const sampler = setInterval(async () => {
    const a = await control('accounts/acct_multi').catch(() => undefined);
    if (!a) return;
    if (restarted) peakAfter = Math.max(peakAfter, a.in_flight);
    else peakBefore = Math.max(peakBefore, a.in_flight);
  }, 20);
  // Redis goes down (losing everything) once 40 % of the runs are done, and comes back 1.5 s later.
  const restart = (async () => {
    while ((await books.hlen(`${BOOKS}keys`)) < N2 * 0.4) await sleep(100);
    log('restarting the instances\u2019 Redis (data lost)');
    restarted = true;
    await redis.restart(1_500);
    log('Redis is back');
  })();
  const batches = await Promise.all(
    instances.map(async (instance) => {
      const response = await fetch(`${instance.url}/soak/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ n: N2 / instances.length, tag: randomUUID() }),
      });
      return (await response.json()).results;
    }),
  );
  await restart;
  // Let every delivery chain end: attempts 1 s and 5 s apart (scaled), each up to a real 5 s window.
  for (let i = 0; i < 100; i++) {
    const { deliveries } = await control('deliveries?limit=10000');
    if (!deliveries.some((row) => row.outcome === 'retrying')) break;
    await sleep(200);
  }
  await sleep(6_000);
  clearInterval(sampler);
  const results = batches.flat();
  const completed = await books.hgetall(`${BOOKS}completed`);
  const noticed = await books.hgetall(`${BOOKS}noticed`);
  const handled = await books.hgetall(`${BOOKS}handled`);
  const counts = await books.hgetall(`${BOOKS}counts`);
  const { deliveries } = await control('deliveries?limit=10000');
  const account = await control('accounts/acct_multi');
  const reserves = account.ledger.filter((row) => row.type === 'reserve');
  const ids = Object.keys(completed);
  const handledCount = (id) => Number(handled[`${id}:generation.completed`] ?? 0);
  const delays = ids.map((id) => Number(noticed[id]) - Date.parse(completed[id])).filter(Number.isFinite);
  const part = {
    submits: N2,
    failedRuns: results.filter((r) => !r.ok),
    billed: reserves.length,
    billedTwice: reserves.length - new Set(reserves.map((r) => r.generation_id)).size,
    completed: ids.length,
    duplicates: ids.filter((id) => handledCount(id) > 1).length,
    lost: ids.filter((id) => !noticed[id]).length + (N2 - ids.length),
    recoveredByPolling: ids.filter((id) => handledCount(id) === 0).length,
    webhooksDelivered: deliveries.length,
    counts,
    slowestNoticeMs: Math.max(0, ...delays),
    medianNoticeMs: delays.sort((a, b) => a - b)[Math.floor(delays.length / 2)] ?? 0,
    maxConcurrent,
    peakBefore,
    peakAfter,
  };
  check(part.failedRuns.length === 0, `part 2: ${part.failedRuns.length} runs failed (${JSON.stringify(part.failedRuns.slice(0, 3))})`);
  check(part.billed === N2 && part.billedTwice === 0, `part 2: ${part.billed} billed (${part.billedTwice} twice), expected exactly ${N2}`);
  check(part.duplicates === 0, `part 2: ${part.duplicates} generations handled more than once`);
  check(part.lost === 0, `part 2: ${part.lost} generations lost`);
  check(peakBefore <= maxConcurrent, `part 2: ${peakBefore} in flight before the restart, over max_concurrent ${maxConcurrent}`);
  check(Number(counts.rateLimited ?? 0) === 0 || restarted, 'part 2: a 429 met before the restart');
  return part;
}

function report(p1, p2) {
  const c = p2.counts;
  const lines = [
    '',
    `MediaGen soak${quick ? ' (quick)' : ''}: ${((Date.now() - started) / 1000).toFixed(1)} s`,
    '',
    `1. submits under faults: ${p1.submits}`,
    `   faults injected: ${Object.entries(p1.injected)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} (taken by a request; ${p1.unconsumed} posted but left untaken)`,
    `   transport retries: ${p1.retries}, resubmits with the same key: ${p1.resubmits}`,
    `   billed: ${p1.billed} (ledger), completed: ${p1.completed}, billed twice: ${p1.duplicates}, missing: ${p1.missing}`,
    `   balance: ${p1.balance} (expected ${p1.expectedBalance})`,
    '',
    `2. two instances sharing Redis: ${p2.submits} runs, ${p2.billed} billed (${p2.billedTwice} twice), ${p2.completed} completed`,
    `   webhooks delivered (attempts): ${p2.webhooksDelivered}, received by the instances: ${c.received ?? 0}, handled: ${c.handled ?? 0}, de-duplicated: ${c.deduped ?? 0}`,
    `   handler chaos: threw ${c.thrown ?? 0}, outlived the window ${c.timedOut ?? 0}, slow ${c.slow ?? 0}`,
    `   recovered by polling: ${p2.recoveredByPolling}`,
    `   duplicates: ${p2.duplicates}, lost: ${p2.lost}`,
    `   completion to notice: median ${p2.medianNoticeMs} ms, slowest ${p2.slowestNoticeMs} ms`,
    `   in flight at once (max_concurrent ${p2.maxConcurrent}): peak ${p2.peakBefore} before the restart, ${p2.peakAfter} after`,
    `   429s met by the instances: ${c.rateLimited ?? 0}, transport retries: ${c.retries ?? 0}`,
    '',
    `3. Redis restarted mid-run (data lost): submits refused by the fail-closed gate while it was down: ${c.gateRefused ?? 0}`,
    '   (resent with the same key); webhooks answered 500 while down or during the REDIS_DATA_LOST window, retried by the',
    '   service, else recovered by polling; duplicates above stay 0.',
    '',
    failures.length === 0 ? 'all invariants hold' : `INVARIANTS FAILED:\n  ${failures.join('\n  ')}`,
  ];
  console.log(lines.join('\n'));
}

function startInstance(env) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./instance.mjs', import.meta.url))], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(
    () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
      }),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /LISTENING (\S+)/.exec(out);
      if (match) resolve({ url: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`instance ${env.INSTANCE} exited (${code})`)));
  });
}

async function cleanBooks() {
  const keys = await books.keys(`${BOOKS}*`).catch(() => []);
  if (keys.length > 0) await books.del(...keys).catch(() => {});
}

// One process taking gate slots in a loop: WORKERS at once, each holding its slot HOLD_MS.
// Every process first waits at a barrier until all PROCS have started, and worker 0 keeps its
// first slot until some take has found another process holding one, so the processes' holds
// overlap by construction, not by how the machine schedules them.
// While a worker holds a slot it is counted in a Redis hash (one field per process), updated
// atomically, which records the peak of holders across processes and how often a slot was taken
// while another process held one; each hold's [start, end) times (taken after the acquire and
// before the settle) are also pushed to a list for the test to check independently.
// Prints `LISTENING done` when all ROUNDS are through.
import { Redis } from 'ioredis';
import { RedisGateStore } from '../../dist/index.js';

const { REDIS_URL, PREFIX, ROUNDS = '10', WORKERS = '4', HOLD_MS = '15', MAX = '3', PROCS = '2' } = process.env;
const counter = new Redis(REDIS_URL);
const gate = new RedisGateStore({ redis: REDIS_URL, prefix: `${PREFIX}gate:`, pollMs: 5 });
const limits = { perMinute: 10_000, maxConcurrent: Number(MAX) };
const me = String(process.pid);
/** Waits until `done()`; the cap is only a safety net (past the test's timeout), then this process fails. */
async function until(done, what) {
  for (const start = Date.now(); !(await done()); await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() - start > 60_000) {
      console.error(`gate-process: gave up waiting for ${what}`);
      process.exit(1);
    }
  }
}
/** A wall clock shared by the processes on this machine, finer than a millisecond. */
const now = () => performance.timeOrigin + performance.now();

// KEYS: holders (hash process -> holding), peak, overlaps. ARGV: this process.
const TAKE = `local mine = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
local total, others = 0, 0
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local n = tonumber(all[i + 1])
  total = total + n
  if all[i] ~= ARGV[1] then others = others + n end
end
if total > tonumber(redis.call('GET', KEYS[2]) or '0') then redis.call('SET', KEYS[2], total) end
if others > 0 then redis.call('INCR', KEYS[3]) end
return total`;

async function worker(w) {
  for (let i = 0; i < Number(ROUNDS); i++) {
    let grant = await gate.acquire(limits);
    while (!('token' in grant)) {
      await new Promise((r) => setTimeout(r, grant.waitMs));
      grant = await gate.acquire(limits);
    }
    const start = now();
    await counter.eval(TAKE, 3, `${PREFIX}holders`, `${PREFIX}peak`, `${PREFIX}overlaps`, me);
    // No process can finish before a take found another holding: its worker 0 is still here, and
    // the others' takes (slots the rest of this process frees once its rounds end) count it.
    if (w === 0 && i === 0) await until(async () => Number(await counter.get(`${PREFIX}overlaps`)) > 0, 'an overlap');
    const id = `gen-${me}-${w}-${i}`;
    await gate.bind(grant.token, id);
    await new Promise((r) => setTimeout(r, Number(HOLD_MS)));
    await counter.hincrby(`${PREFIX}holders`, me, -1);
    await counter.rpush(`${PREFIX}spans`, JSON.stringify({ process: me, start, end: now() }));
    await counter.incr(`${PREFIX}done`);
    await gate.settle(id);
  }
}

// The barrier: start taking slots only once every process is up.
await counter.incr(`${PREFIX}ready`);
await until(async () => Number(await counter.get(`${PREFIX}ready`)) >= Number(PROCS), 'the other processes');
await Promise.all(Array.from({ length: Number(WORKERS) }, (_, w) => worker(w)));
await Promise.all([counter.quit(), gate.close()]);
console.log('LISTENING done');

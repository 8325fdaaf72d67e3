// One process taking gate slots in a loop: WORKERS at once, each holding its slot HOLD_MS, while
// a shared counter in Redis records how many holders exist across processes at the same time.
// Prints `LISTENING done` when all ROUNDS are through.
import { Redis } from 'ioredis';
import { RedisGateStore } from '../../dist/index.js';

const { REDIS_URL, PREFIX, ROUNDS = '10', WORKERS = '4', HOLD_MS = '15', MAX = '3' } = process.env;
const counter = new Redis(REDIS_URL);
const gate = new RedisGateStore({ redis: REDIS_URL, prefix: `${PREFIX}gate:`, pollMs: 5 });
const limits = { perMinute: 10_000, maxConcurrent: Number(MAX) };
const RECORD_PEAK = `local n = redis.call('INCR', KEYS[1])
if n > tonumber(redis.call('GET', KEYS[2]) or '0') then redis.call('SET', KEYS[2], n) end
return n`;

async function worker(w) {
  for (let i = 0; i < Number(ROUNDS); i++) {
    let grant = await gate.acquire(limits);
    while (!('token' in grant)) {
      await new Promise((r) => setTimeout(r, grant.waitMs));
      grant = await gate.acquire(limits);
    }
    await counter.eval(RECORD_PEAK, 2, `${PREFIX}holders`, `${PREFIX}peak`);
    await gate.bind(grant.token, `gen-${process.pid}-${w}-${i}`);
    await new Promise((r) => setTimeout(r, Number(HOLD_MS)));
    await counter.decr(`${PREFIX}holders`);
    await counter.incr(`${PREFIX}done`);
    await gate.settle(`gen-${process.pid}-${w}-${i}`);
  }
}

await Promise.all(Array.from({ length: Number(WORKERS) }, (_, w) => worker(w)));
await Promise.all([counter.quit(), gate.close()]);
console.log('LISTENING done');

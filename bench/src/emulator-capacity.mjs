// Row 6. Emulator capacity: submits/s and status reads/s held with no errors, driven by
// autocannon from a second process against the emulator in a third, and the emulator's
// memory for 10,000 tracked generations. Targets from issue 4's quality bar: 200 submits/s,
// 5,000 status reads/s, 10,000 generations in under 200 MB.
import { here, startChild } from './child.mjs';
import { emulatorMissing, startEmulatorChild } from './emulator-probe.mjs';
import { fmt, stats } from './measure.mjs';

const SUBMIT_TARGET = 200;
const READ_TARGET = 5000;
const MEMORY_TARGET = 200 * 2 ** 20;
const ACCOUNTS = 400;

/** Many Ultimate accounts, so the per-account limits (600/min, 20 in flight) never bind: this measures the emulator, not the tier. */
function config(timeScale) {
  return {
    timeScale,
    accounts: Array.from({ length: ACCOUNTS }, (_, i) => ({
      id: `acct_bench_${i}`,
      tier: 'ultimate',
      balance: 1_000_000,
      keys: [{ key: `svc_live_bench_${i}` }],
    })),
  };
}
const keys = Array.from({ length: ACCOUNTS }, (_, i) => `svc_live_bench_${i}`);
const BODY = { model: 'image-fast', prompt: 'capacity bench' };
const errorsOf = (r) => r.non2xx + r.errors + r.timeouts;
const codesOf = (r) =>
  Object.entries(r.statusCodeStats ?? {})
    .filter(([k]) => !k.startsWith('2'))
    .map(([k, v]) => `${v.count}×${k}`)
    .concat(r.errors ? [`${r.errors} socket errors`] : [], r.timeouts ? [`${r.timeouts} timeouts`] : [])
    .join(', ');

function notMeasured(why) {
  return {
    rows: [
      {
        id: 'emulator-submits',
        what: 'Emulator: submits/s held, no errors',
        ours: `not measured: ${why}`,
        peers: {},
        target: `≥ ${SUBMIT_TARGET}/s`,
        status: 'not measured',
      },
      {
        id: 'emulator-reads',
        what: 'Emulator: status reads/s held, no errors',
        ours: `not measured: ${why}`,
        peers: {},
        target: `≥ ${READ_TARGET}/s`,
        status: 'not measured',
      },
      {
        id: 'emulator-memory',
        what: 'Emulator: memory for 10,000 generations',
        ours: `not measured: ${why}`,
        peers: {},
        target: '< 200 MB',
        status: 'not measured',
      },
    ],
    raw: { missing: why },
  };
}

async function seedIds(url, n) {
  const targets = [];
  for (let i = 0; i < n; i++) {
    const key = keys[i % keys.length];
    const res = await fetch(`${url}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...BODY, prompt: `seed ${i}` }),
    });
    const body = await res.json();
    if (res.status !== 202) throw new Error(`seeding a generation got ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    targets.push([key, body.generation_id]);
  }
  return targets;
}

export async function run({ quick }) {
  const missing = await emulatorMissing();
  if (missing) return notMeasured(missing);
  const rounds = quick ? 1 : 3;
  const seconds = quick ? 2 : 5;
  const memoryCount = 10_000; // about 5 s even in quick mode
  const loader = await startChild(here('./child/load.mjs'));
  const raw = { rounds, seconds, accounts: ACCOUNTS };
  try {
    // Held rates: the target offered at a fixed rate; rounds alternate submits and reads.
    let emu = await startEmulatorChild(config(0.001));
    const held = { submits: [], reads: [] };
    let ceiling;
    try {
      const targets = await seedIds(emu.url, 200);
      const submitLoad = (rate, dur) =>
        loader.ask({
          cmd: 'load',
          opts: {
            url: emu.url,
            method: 'POST',
            path: '/api/v1/generate',
            body: BODY,
            keys,
            connections: 10,
            duration: dur,
            overallRate: rate,
          },
        });
      const readLoad = (rate, dur) =>
        loader.ask({ cmd: 'load', opts: { url: emu.url, targets, connections: 20, duration: dur, overallRate: rate } });
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 ? ['reads', 'submits'] : ['submits', 'reads'];
        for (const what of order) {
          held[what].push(what === 'submits' ? await submitLoad(SUBMIT_TARGET, seconds) : await readLoad(READ_TARGET, seconds));
        }
      }
      // Ceilings: no rate cap, to show the headroom above the targets.
      ceiling = {
        submits: await submitLoad(undefined, 2),
        reads: await readLoad(undefined, 2),
      };
    } finally {
      await emu.stop();
    }
    raw.held = held;
    raw.ceiling = ceiling;

    // Memory: a fresh emulator, N generations submitted and run to completion, after full GCs.
    emu = await startEmulatorChild(config(0.0001));
    let memory;
    try {
      const [[firstKey, firstId]] = await seedIds(emu.url, 1);
      const before = await emu.memory();
      const fill = await loader.ask(
        {
          cmd: 'load',
          opts: { url: emu.url, method: 'POST', path: '/api/v1/generate', body: BODY, keys, connections: 10, amount: memoryCount },
        },
        300_000,
      );
      await new Promise((r) => setTimeout(r, 500)); // let the last renders finish (timeScale 0.0001)
      const after = await emu.memory();
      const first = await fetch(`${emu.url}/api/v1/generations/${firstId}`, { headers: { authorization: `Bearer ${firstKey}` } });
      await first.arrayBuffer();
      if (first.status !== 200) throw new Error(`the first generation is no longer tracked after ${memoryCount} more (${first.status})`);
      memory = { count: memoryCount, fill, before, after, perGenerationBytes: (after.heapUsed - before.heapUsed) / memoryCount };
    } finally {
      await emu.stop();
    }
    raw.memory = memory;

    const rowFor = (what, target, label) => {
      const runs = held[what];
      const rates = stats(runs.map((x) => x.okPerSec));
      const errs = runs.reduce((a, x) => a + errorsOf(x), 0);
      const c = ceiling[what];
      const ratio = stats(runs.map((x) => x.okPerSec / target));
      const codes = runs
        .map((x) => JSON.stringify(Object.fromEntries(Object.entries(x.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]))))
        .join(' ');
      return {
        id: `emulator-${what}`,
        what: `Emulator: ${label} held at ${target}/s offered, ${seconds} s ×${rounds}`,
        ours: `${rates.median.toFixed(0)}/s (${rates.min.toFixed(0)}–${rates.max.toFixed(0)}), ${errs} errors; ceiling ${c.okPerSec.toFixed(0)}/s${errorsOf(c) ? ` (${errorsOf(c)} errors: ${codesOf(c)})` : ', 0 errors'}`,
        peers: {},
        floor: '—',
        ratio: `${fmt.ratio(ratio)} target`,
        target: `≥ ${target}/s, 0 errors`,
        status: errs === 0 && ratio.median >= 0.97 ? 'pass' : 'miss',
        note: `autocannon from a second process, emulator in a third; ${ACCOUNTS} Ultimate accounts round-robin so tier limits never bind; ceiling = 2 s with no rate cap; status codes per run ${codes}; p99 latency ${runs.map((x) => x.latencyMs.p99).join('/')} ms`,
      };
    };
    const rss = memory.after.rss;
    const projected = memoryCount === 10_000 ? rss : memory.before.rss + (memory.after.rss - memory.before.rss) * (10_000 / memoryCount);
    return {
      rows: [
        rowFor('submits', SUBMIT_TARGET, 'submits/s'),
        rowFor('reads', READ_TARGET, 'status reads/s'),
        {
          id: 'emulator-memory',
          what: `Emulator: memory for ${memoryCount.toLocaleString('en')} tracked generations`,
          ours: `RSS ${fmt.bytes(rss)}${memoryCount === 10_000 ? '' : ` (projected to 10,000: ${fmt.bytes(projected)})`}; heap +${fmt.bytes(memory.after.heapUsed - memory.before.heapUsed)} (${memory.perGenerationBytes.toFixed(0)} B/generation)`,
          peers: {},
          floor: `empty emulator: RSS ${fmt.bytes(memory.before.rss)}, heap ${fmt.bytes(memory.before.heapUsed)}`,
          ratio: `${(projected / MEMORY_TARGET).toFixed(2)}× budget`,
          target: '< 200 MB RSS for 10,000',
          status: projected < MEMORY_TARGET && memory.fill.non2xx === 0 ? 'pass' : 'miss',
          note: `all generations submitted through the API (${memory.fill.ok} accepted, ${memory.fill.non2xx} refused) and run to completion; measured after full GCs${memoryCount === 10_000 ? '' : '; quick mode measures fewer and projects linearly'}`,
        },
      ],
      raw,
    };
  } finally {
    await loader.stop();
  }
}

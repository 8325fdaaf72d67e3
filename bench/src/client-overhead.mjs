// Row 1. Client overhead: generations.get against one minimal local HTTP server (in its own
// process), @mediagen/core vs the floor: a bare fetch with the same headers and JSON.parse.
import { MediaGenClient } from '@mediagen/core';
import { startChild, here } from './child.mjs';
import { interleave, repeat, summarize, fmt } from './measure.mjs';

const TARGET = 1.1;
const KEY = 'svc_live_bench_overhead';
const ID = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

export async function run({ quick }) {
  // Short rounds, many of them: each ratio pairs two samples taken milliseconds apart, so a
  // burst of load from elsewhere on the machine skews one round, not the median.
  const rounds = quick ? 30 : 100;
  const perRound = 20; // full: 100 rounds x 20 = 2,000 calls each side, after warm-up rounds
  const server = await startChild(here('./child/minimal-server.mjs'));
  try {
    const baseUrl = `http://127.0.0.1:${server.info.port}`;
    const client = new MediaGenClient({ apiKey: KEY, baseUrl, maxRetries: 0 });
    const url = `${baseUrl}/api/v1/generations/${ID}`;
    const headers = { authorization: `Bearer ${KEY}`, accept: 'application/json' };
    let sink = 0;
    const cases = {
      floor: () =>
        repeat(perRound, async () => {
          const res = await fetch(url, { headers });
          const data = JSON.parse(await res.text());
          sink += data.credits_used;
        }),
      ours: () =>
        repeat(perRound, async () => {
          const g = await client.generations.get(ID);
          sink += g.credits_used;
        }),
    };
    const { samples } = await interleave({ cases, rounds, warmup: 10, opsPerSample: perRound });
    const s = summarize(samples, 'floor');
    const r = s.ours.ratioToFloor;
    if (!sink) throw new Error('no work done');
    return {
      rows: [
        {
          id: 'client-overhead',
          what: `Client overhead: generations.get ×${rounds * perRound} (per call)`,
          ours: fmt.timeRange(s.ours.time),
          peers: {},
          floor: fmt.timeRange(s.floor.time),
          ratio: fmt.ratio(r),
          target: `≤ ${TARGET.toFixed(2)}× floor`,
          status: r.median <= TARGET ? 'pass' : 'miss',
          note: 'floor = fetch with the same headers + JSON.parse; server in a second process; per-round ratio',
        },
      ],
      raw: { rounds, perRound, calls: rounds * perRound, summary: s, samples },
    };
  } finally {
    await server.stop();
  }
}

// Row 4. Cold start: time to `import` the built package in a fresh Node process, vs the same
// peers as the bundle row, and vs the floor (importing an empty module). One fresh process
// per package per round, packages interleaved in rotated order.

import { PEERS } from './bundle-size.mjs';
import { here, runNode } from './child.mjs';
import { fmt, interleave, stats } from './measure.mjs';

export async function run({ quick }) {
  const rounds = quick ? 3 : 10;
  const specs = { floor: './empty.mjs', ours: '@mediagen/core', ...Object.fromEntries(PEERS.map((p) => [p, p])) };
  const wall = Object.fromEntries(Object.keys(specs).map((k) => [k, []]));
  const failures = {};
  const cases = Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [
      name,
      async () => {
        const r = await runNode([here('./child/import-one.mjs'), spec]);
        if (r.code !== 0) {
          failures[name] = (
            r.stderr
              .trim()
              .split('\n')
              .find((l) => /Error/.test(l)) ?? `exit ${r.code}`
          ).slice(0, 160);
          return NaN;
        }
        wall[name].push(r.wallMs);
        return JSON.parse(r.stdout).importMs;
      },
    ]),
  );
  const { samples } = await interleave({ cases, rounds, warmup: 1 });
  // Discard the warm-up's wall times too (interleave only trims the returned samples).
  for (const k of Object.keys(wall)) wall[k] = wall[k].slice(-rounds);
  const sum = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stats(v)]));
  const vsOurs = Object.fromEntries(PEERS.map((p) => [p, stats(samples[p].map((x, i) => x / samples.ours[i]))]));
  const cell = (name) =>
    failures[name] ? `error: ${failures[name]}` : `${fmt.time(sum[name].median)} (${fmt.ratio(vsOurs[name]).replace(/ \(.*/, '')} ours)`;
  const beaten = PEERS.filter((p) => !failures[p] && vsOurs[p].median > 1);
  const measuredPeers = PEERS.filter((p) => !failures[p]);
  const rows = [
    {
      id: 'cold-start',
      what: 'Cold start: import in a fresh Node process',
      ours: failures.ours ? `error: ${failures.ours}` : fmt.timeRange(sum.ours),
      peers: Object.fromEntries(PEERS.map((p) => [p, cell(p)])),
      floor: fmt.timeRange(sum.floor),
      ratio: `ours ${fmt.ratio(stats(samples.ours.map((x, i) => x / samples.floor[i])))} floor; faster than ${beaten.length}/${measuredPeers.length} peers`,
      target: 'none set (report)',
      status: 'info',
      note: 'import() time measured inside each fresh process; floor = importing an empty module; peer cell = peer time and its ratio to ours',
    },
  ];
  return {
    rows,
    raw: {
      rounds,
      importMs: sum,
      vsOurs,
      processWallMs: Object.fromEntries(Object.entries(wall).map(([k, v]) => [k, stats(v)])),
      samples,
      failures,
    },
  };
}

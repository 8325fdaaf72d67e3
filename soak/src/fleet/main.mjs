// `pnpm soak --fleet [--quick] [--deadline=<s>]`: the fleet soak (fleet.mjs), on its own. Prints
// the report and exits 1 if an invariant fails, or if the overall deadline passes (default 480 s
// quick, 1800 s full: every step has its own bound, this one catches what they miss).
import { fleetProgress, runFleet } from './fleet.mjs';

const quick = process.argv.includes('--quick');
const started = Date.now();
const log = (msg) => process.stderr.write(`soak ${((Date.now() - started) / 1000).toFixed(1)}s: ${msg}\n`);
const deadlineArg = process.argv.find((a) => a.startsWith('--deadline='));
const deadlineMs = (deadlineArg ? Number(deadlineArg.slice('--deadline='.length)) : quick ? 480 : 1_800) * 1000;
const deadline = setTimeout(() => {
  console.error(`fleet: FAILED: the overall deadline of ${deadlineMs / 1000} s passed; ${fleetProgress()}`);
  process.exit(1);
}, deadlineMs);
// Stopped by hand: exit through process.exit, so HAProxy and redis-server (exit hooks) go too.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));
const { failures, lines } = await runFleet({ quick, log });
clearTimeout(deadline);
console.log(lines.join('\n'));
process.exit(failures.length === 0 ? 0 : 1);

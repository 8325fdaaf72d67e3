import { clientFrom, type GlobalOptions } from '../context';
import { table, thousands } from '../format';
import type { Io } from '../io';

export async function creditsCommand(options: GlobalOptions, io: Io): Promise<void> {
  const client = clientFrom(options, io);
  const summary = await client.credits.get();
  if (options.json) return io.json(summary);
  const rows = [
    ['balance', thousands(summary.balance)],
    ['tier', summary.tier],
    ['spent this cycle', thousands(summary.spent_this_cycle)],
    ['granted this cycle', thousands(summary.granted_this_cycle)],
    ['cycle resets', summary.cycle_resets_at ?? 'no active cycle'],
    ['rate limit', `${summary.rate_limit?.per_minute}/min, ${summary.rate_limit?.max_concurrent} at once`],
  ];
  for (const line of table(rows)) io.out(line);
  io.err(io.color.dim(`request ${summary.request_id}`));
}

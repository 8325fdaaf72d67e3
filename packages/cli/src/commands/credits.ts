import { clientFrom, type GlobalOptions } from '../context';
import { table, text, thousands } from '../format';
import type { Io } from '../io';

export async function creditsCommand(options: GlobalOptions, io: Io): Promise<void> {
  const client = clientFrom(options, io);
  const summary = await client.credits.get();
  if (options.json) return io.json(summary);
  // Each cell is the service's text, read as text (a wrong type shows as `?`); `io` escapes it.
  const rows = [
    ['balance', thousands(summary.balance)],
    ['tier', text(summary.tier)],
    ['spent this cycle', thousands(summary.spent_this_cycle)],
    ['granted this cycle', thousands(summary.granted_this_cycle)],
    ['cycle resets', summary.cycle_resets_at == null ? 'no active cycle' : text(summary.cycle_resets_at)],
    ['rate limit', `${text(summary.rate_limit?.per_minute)}/min, ${text(summary.rate_limit?.max_concurrent)} at once`],
  ];
  for (const line of table(rows)) io.out(line);
  io.err(io.color.dim(`request ${text(summary.request_id)}`));
}

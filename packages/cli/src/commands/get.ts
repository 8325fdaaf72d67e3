import { clientFrom, type GlobalOptions } from '../context';
import { failureCharge, mayRetry, seconds, table, text } from '../format';
import type { Io } from '../io';

export async function getCommand(id: string, options: GlobalOptions, io: Io): Promise<void> {
  const client = clientFrom(options, io);
  const g = await client.generations.get(id);
  if (options.json) return io.json(g);
  const terminal = g.status === 'completed' || g.status === 'failed';
  const rows = [
    ['generation', g.generation_id],
    ['status', g.status],
    ['model', g.model],
    ['credits', g.status === 'failed' ? failureCharge(g) : `${g.credits_used} ${terminal ? 'charged' : 'reserved'}`],
    ['created', g.created_at],
  ];
  if (terminal) rows.push(['completed', g.completed_at ?? '-'], ['took', seconds(g.duration_ms)]);
  if (g.error) rows.push(['error', `${g.error.code}: ${g.error.message}${mayRetry(g) ? ' (retryable)' : ''}`]);
  for (const [i, url] of (Array.isArray(g.output_urls) ? g.output_urls : []).entries()) rows.push([`output ${i}`, text(url)]);
  rows.push(['request', g.request_id]);
  for (const line of table(rows)) io.out(line);
}

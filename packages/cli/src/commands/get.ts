import { clientFrom, type GlobalOptions } from '../context';
import { failureCharge, mayRetry, seconds, table, text } from '../format';
import type { Io } from '../io';

export async function getCommand(id: string, options: GlobalOptions, io: Io): Promise<void> {
  const client = clientFrom(options, io);
  const g = await client.generations.get(id);
  if (options.json) return io.json(g);
  const terminal = g.status === 'completed' || g.status === 'failed';
  // Each cell is the service's text, read as text (a wrong type shows as `?`); `io` escapes it.
  const rows = [
    ['generation', text(g.generation_id)],
    ['status', text(g.status)],
    ['model', text(g.model)],
    ['credits', g.status === 'failed' ? failureCharge(g) : `${text(g.credits_used)} ${terminal ? 'charged' : 'reserved'}`],
    ['created', text(g.created_at)],
  ];
  if (terminal) rows.push(['completed', g.completed_at == null ? '-' : text(g.completed_at)], ['took', seconds(g.duration_ms)]);
  if (g.error) rows.push(['error', `${text(g.error.code)}: ${text(g.error.message)}${mayRetry(g) ? ' (retryable)' : ''}`]);
  for (const [i, url] of (Array.isArray(g.output_urls) ? g.output_urls : []).entries()) rows.push([`output ${i}`, text(url)]);
  rows.push(['request', text(g.request_id)]);
  for (const line of table(rows)) io.out(line);
}

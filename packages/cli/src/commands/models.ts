import { clientFrom, type GlobalOptions } from '../context';
import type { Io } from '../io';
import { modelTable } from '../model-table';

export async function modelsCommand(options: GlobalOptions, io: Io): Promise<void> {
  const client = clientFrom(options, io);
  const list = await client.models.list();
  if (options.json) return io.json(list);
  const { lines, summary } = modelTable(list);
  for (const line of lines) io.out(line);
  io.err(io.color.dim(summary));
}

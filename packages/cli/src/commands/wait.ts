import { clientFrom, type GlobalOptions } from '../context';
import type { Io } from '../io';
import { resultsAllowed } from '../results-asked';
import { type FollowOptions, follow } from './follow';

export async function waitCommand(id: string, options: GlobalOptions & FollowOptions, io: Io): Promise<number> {
  const client = clientFrom(options, io);
  // The kind sets the progress line's expected time and the polling interval.
  const first = await client.generations.get(id);
  const model = await client.models.find(first.model).catch(() => undefined);
  // Its params are not known here: the most its model takes is the most it can have asked for.
  return follow(client, io, id, model?.kind, options, { results: resultsAllowed(model) });
}

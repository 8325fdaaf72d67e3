import { clientFrom, type GlobalOptions } from '../context';
import type { Io } from '../io';
import { type FollowOptions, follow } from './follow';

export async function waitCommand(id: string, options: GlobalOptions & FollowOptions, io: Io): Promise<number> {
  const client = clientFrom(options, io);
  // The kind sets the progress line's expected time and the polling interval.
  const first = await client.generations.get(id);
  const kind = (await client.models.find(first.model).catch(() => undefined))?.kind;
  return follow(client, io, id, kind, options);
}

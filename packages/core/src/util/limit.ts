import { ConfigurationError } from '../errors';

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A body size limit as bytes: a number, or a string such as `'100kb'` or `'1mb'` (as Express's parsers take). */
export type BodyLimit = number | `${number}${'b' | 'kb' | 'mb' | 'gb'}` | string;

export function parseLimit(limit: BodyLimit | undefined, fallback: number): number {
  if (limit === undefined) return fallback;
  if (typeof limit === 'number' && Number.isFinite(limit) && limit >= 0) return Math.floor(limit);
  const match = typeof limit === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit) : null;
  if (!match) throw new ConfigurationError(`Invalid body limit ${JSON.stringify(limit)}: use a number of bytes or a string like '1mb'.`);
  return Math.floor(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]!);
}

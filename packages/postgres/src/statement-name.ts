import { createHash } from 'node:crypto';

/**
 * A prepared statement's name for `text`, the same for the same text in every store and pool
 * (so two stores on one pool share it, and two texts never clash): PostgreSQL then parses and
 * plans each statement once per connection, not on every call. Each store caches its own names
 * (the project keeps no module-level state).
 */
export function statementName(text: string): string {
  return `mediagen_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}

/**
 * The server lost (26000) or already holds (42P05) a named statement the driver expects: a pooler
 * in transaction mode that hands each transaction another server connection and does not carry
 * named statements across (PgBouncer before 1.21, or with `max_prepared_statements = 0`). Nothing
 * ran: the statement may be sent again, unnamed.
 */
export function lostPreparedStatement(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '26000' || code === '42P05';
}

import { createInterface } from 'node:readline';
import { UsageError } from '../errors';
import type { Io } from '../io';

/**
 * Asks on the terminal before spending. Never when stdin is not a terminal (a pipe, CI, a
 * script): an answer cannot come from there, and a "yes" piped in by accident must not spend
 * credits; `--yes` is the only way to run unattended. Ctrl-C here ends the process as usual
 * (nothing was sent yet).
 */
export async function confirmSpend(io: Io, question: string, stdin: NodeJS.ReadStream = process.stdin): Promise<boolean> {
  if (!stdin.isTTY) {
    throw new UsageError('Not asking for confirmation: stdin is not a terminal.', 'Pass --yes to run the batch without asking.');
  }
  io.errRaw(`${question} [y/N] `);
  const reader = createInterface({ input: stdin, terminal: false });
  try {
    const answer = await new Promise<string>((resolve) => {
      reader.once('line', resolve);
      reader.once('close', () => resolve(''));
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    reader.close();
  }
}

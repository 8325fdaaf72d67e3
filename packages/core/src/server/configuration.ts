import type { MediaGenClient } from '../client';
import { isMediaGenError } from '../errors';
import { readEnv } from '../util/env';
import { EMULATOR_BASE_URL, EMULATOR_WEBHOOK_SECRET } from '../wire/emulator';
import { ERROR_CODES, type ErrorCode } from '../wire/error-codes';
import { nextStep } from './next-step';
import type { MediaGenHandlerOptions } from './options';

/** One thing that keeps the app from serving as it should: what `GET /health` lists, and start-up warns of. */
export interface ConfigurationProblem {
  code: string;
  message: string;
  next: string;
}

/**
 * The webhook's signing secrets: the option, else (read per delivery) `MEDIAGEN_WEBHOOK_SECRET`;
 * and, outside production against the local emulator with neither set, the secret the emulator
 * signs with by default, so a new app's webhooks work with no settings (it opens nothing: the
 * emulator's events are about the emulator's demo generations).
 */
export function webhookSecrets(options: Pick<MediaGenHandlerOptions, 'client' | 'webhook'>): string | readonly string[] | undefined {
  const given = options.webhook?.secrets;
  if (given !== undefined || readEnv('MEDIAGEN_WEBHOOK_SECRET')) return given;
  return options.client.baseUrl === EMULATOR_BASE_URL && readEnv('NODE_ENV') !== 'production' ? EMULATOR_WEBHOOK_SECRET : undefined;
}

const problem = (code: ErrorCode, message: string, next = ERROR_CODES[code].next): ConfigurationProblem => ({ code, message, next });

/** What is wrong before the service is asked: the settings and options a request would fail on. */
export function settingProblems(options: MediaGenHandlerOptions<never>): ConfigurationProblem[] {
  const problems: ConfigurationProblem[] = [];
  if (!options.client.baseUrl) {
    problems.push(
      problem(
        'CONFIGURATION_ERROR',
        'NODE_ENV=production needs MEDIAGEN_BASE_URL: every call to the service fails.',
        'Set MEDIAGEN_BASE_URL.',
      ),
    );
  }
  const secrets = webhookSecrets(options);
  const secretSet = secrets === undefined ? readEnv('MEDIAGEN_WEBHOOK_SECRET') !== undefined : [secrets].flat().some(Boolean);
  if (options.webhook && !secretSet) {
    problems.push(
      problem(
        'WEBHOOK_SECRET_MISSING',
        'No webhook secret is set: every delivery is refused (500), and results arrive only by polling, seconds late.',
      ),
    );
  }
  if (!options.identify && !options.allowAnonymous) {
    problems.push(
      problem(
        'USER_UNKNOWN',
        'No identify: submits, lists and reads answer 401 USER_UNKNOWN.',
        'Pass identify (the user of a request, from your auth), or allowAnonymous: true for one list shared by every visitor.',
      ),
    );
  }
  return problems;
}

/**
 * Whether the service answers this app's key: one models read (cached while it holds, not
 * resent, bounded in time, so a health probe never waits out the retry schedule).
 */
export async function serviceProblem(client: MediaGenClient, basePath: string | undefined): Promise<ConfigurationProblem | undefined> {
  try {
    await client.models.cachedList({ maxRetries: 0, timeoutMs: 5_000 });
    return undefined;
  } catch (error) {
    const code = isMediaGenError(error) ? error.code : 'UNEXPECTED';
    // The client's own configuration texts name settings, never values; any other failure is named by its code only.
    const message = code === 'CONFIGURATION_ERROR' ? (error as Error).message : `The service check failed (${code}).`;
    const next =
      nextStep(error, { client, basePath }) ?? (code in ERROR_CODES ? ERROR_CODES[code as ErrorCode].next : 'See the server log.');
    return { code, message, next };
  }
}

/** Printed once per process and message (a dev server's reloads rebuild the handler each time). */
const warned = new Set<string>();

/**
 * Says each problem at start-up, on the console, where a developer looks first; not while
 * `next build` loads the module to collect page data (the settings are the running server's).
 */
export function warnAtStart(problems: readonly ConfigurationProblem[], healthPath: string): void {
  if (readEnv('NEXT_PHASE') === 'phase-production-build') return;
  for (const { code, message, next } of problems) {
    const line = `[mediagen] ${code}: ${message} ${next} (GET ${healthPath} lists what is wrong.)`;
    if (warned.has(line)) continue;
    warned.add(line);
    globalThis.console?.warn?.(line);
  }
}

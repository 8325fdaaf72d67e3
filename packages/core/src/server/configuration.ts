import type { MediaGenClient } from '../client';
import { isMediaGenError } from '../errors';
import { readEnv } from '../util/env';
import { secretsFromEnv } from '../webhooks/handler';
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
export function webhookSecrets(options: {
  client?: { baseUrl?: string } | undefined;
  webhook?: { secrets?: string | readonly string[] | undefined } | undefined;
}): string | readonly string[] | undefined {
  const given = options.webhook?.secrets;
  // The environment read as the receiver reads it (comma-separated, blanks dropped).
  if (given !== undefined || secretsFromEnv().length > 0) return given;
  return options.client?.baseUrl === EMULATOR_BASE_URL && readEnv('NODE_ENV') !== 'production' ? EMULATOR_WEBHOOK_SECRET : undefined;
}

/**
 * What signs the upload route's `input` tokens: `uploads.secret`, else `MEDIAGEN_UPLOAD_SECRET`,
 * else the webhook secret (every instance of an app has it, and the emulator's in development).
 */
export function uploadSecret(options: MediaGenHandlerOptions<never>): string | undefined {
  const webhook = [webhookSecrets(options) ?? []].flat().find(Boolean);
  return options.uploads?.secret ?? readEnv('MEDIAGEN_UPLOAD_SECRET') ?? webhook ?? secretsFromEnv()[0];
}

/** Whether deliveries can be verified: a secret given, in the environment, or the emulator's in development. */
export function webhookSecretProblem(secrets: string | readonly string[] | undefined): ConfigurationProblem | undefined {
  const set = secrets === undefined ? secretsFromEnv().length > 0 : [secrets].flat().some(Boolean);
  return set
    ? undefined
    : problem(
        'WEBHOOK_SECRET_MISSING',
        'No webhook secret is set: every delivery is refused (500), and results arrive only by polling, seconds late.',
      );
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
  const secretMissing = options.webhook ? webhookSecretProblem(webhookSecrets(options)) : undefined;
  if (secretMissing) problems.push(secretMissing);
  if (options.uploads && !uploadSecret(options)) {
    problems.push(
      problem(
        'CONFIGURATION_ERROR',
        'No secret signs upload tokens: every upload fails (500).',
        'Set MEDIAGEN_UPLOAD_SECRET (or uploads.secret).',
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
    // The client's own configuration texts name a setting, never a value; any other failure is named by its code only.
    if (code === 'CONFIGURATION_ERROR') {
      return { code, message: (error as Error).message, next: 'Set it (or pass the option to the client), then restart the server.' };
    }
    const next =
      nextStep(error, { client, basePath }) ?? (code in ERROR_CODES ? ERROR_CODES[code as ErrorCode].next : 'See the server log.');
    return { code, message: `The service check failed (${code}).`, next };
  }
}

/**
 * Says each problem when the handler is made, on the console, where a developer looks first;
 * not while `next build` loads the module to collect page data (the settings are the running
 * server's). A handler is made once per process (the quick starts keep it on `globalThis`).
 */
export function warnAtStart(problems: readonly (ConfigurationProblem | undefined)[], healthPath?: string): void {
  if (readEnv('NEXT_PHASE') === 'phase-production-build') return;
  const health = healthPath ? ` (GET ${healthPath} lists what is wrong.)` : '';
  for (const found of problems) {
    if (found) globalThis.console?.warn?.(`[mediagen] ${found.code}: ${found.message} ${found.next}${health}`);
  }
}

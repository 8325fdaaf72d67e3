import { Command, CommanderError, Option } from 'commander';
import { batchCommand } from './commands/batch';
import { creditsCommand } from './commands/credits';
import { emulatorCommand } from './commands/emulator';
import { estimateCommand } from './commands/estimate';
import { generateCommand } from './commands/generate';
import { getCommand } from './commands/get';
import { modelsCommand } from './commands/models';
import { DEFAULT_TYPES_FILE, typesCommand } from './commands/types';
import { waitCommand } from './commands/wait';
import { UsageError } from './errors';
import { EXIT, exitCodeFor } from './exit-codes';
import type { Io } from './io';
import { reportError } from './report-error';
import { redactSecretShapes } from './secret-shapes';

const EXIT_CODES_HELP = `
Exit codes: 0 ok, 1 types --check found the file out of date, 2 usage, 3 auth or permission
(401, 403, no key), 4 credits (402), 5 params (refused by the model's schema, 400, 422),
6 service or network (5xx, 409, 429, timeouts), 7 generation failed, 8 not found (404),
9 outputs not writable, 10 stopped while waiting for a submit slot (Ctrl-C; nothing created or
billed), 130 interrupted (Ctrl-C; nothing is cancelled).

Configuration: MEDIAGEN_API_KEY and MEDIAGEN_BASE_URL, or --api-key / --base-url
(default base URL: the local emulator, http://127.0.0.1:4010). The key is never printed.`;

const collect = (value: string, previous: string[]) => [...previous, value];

/** Options every command that talks to the service takes. */
function withService(command: Command, json = true): Command {
  command
    .addOption(new Option('--api-key <key>', 'API key (default: $MEDIAGEN_API_KEY; prefer the variable: flags show in ps)'))
    .addOption(new Option('--base-url <url>', 'service address (default: $MEDIAGEN_BASE_URL, else http://127.0.0.1:4010)'))
    .addOption(new Option('--max-retries <n>', 'resends after a 5xx, 409, 429 or a dropped connection (default 4)'));
  if (json) command.option('--json', 'print JSON on stdout instead of text');
  return command;
}

function withParams(command: Command): Command {
  return command
    .option('--model <slug>', 'model slug (see mediagen models)')
    .option('--prompt <text>', 'the prompt')
    .option('--param <key=value>', 'a model param, repeatable; typed by the model schema (reference_images: repeat it)', collect, []);
}

/**
 * The `mediagen` command tree. Each action resolves with its exit code; errors are printed
 * as one line and mapped to a code per kind (EXIT_CODES_HELP).
 */
export function buildProgram(io: Io, setExitCode: (code: number) => void): Command {
  const program = new Command('mediagen')
    .description('MediaGen on the command line: models, estimates, generations with live progress, the local emulator, typed params.')
    .option('--no-color', 'no colours (NO_COLOR works too)')
    .addHelpText('after', EXIT_CODES_HELP)
    .showSuggestionAfterError(true)
    .exitOverride()
    // The parser's errors and help echo what was typed, before any command registered the key.
    .configureOutput({
      writeOut: (s) => io.out(redactSecretShapes(s.replace(/\n$/, ''))),
      writeErr: (s) => io.err(redactSecretShapes(s.replace(/\n$/, ''))),
    });

  const run =
    <A extends unknown[]>(action: (...args: A) => Promise<number | undefined>) =>
    async (...args: A) => {
      try {
        setExitCode((await action(...args)) ?? EXIT.ok);
      } catch (error) {
        reportError(io, error);
        setExitCode(exitCodeFor(error));
      }
    };

  withService(program.command('models').description("this account's models: slug, kind, modes, price")).action(
    run(async (options) => void (await modelsCommand(options, io))),
  );

  withParams(withService(program.command('estimate').description('the exact cost of a request; nothing is charged'))).action(
    run(async (options) => void (await estimateCommand(options, io))),
  );

  withParams(withService(program.command('generate').description('validate, submit, and with --wait follow it and download the outputs')))
    .argument('[model]', 'model slug (or --model)')
    .option('--input-image <file|url>', 'input image: a file path, - for stdin, an https URL or a generation id')
    .option('--input-video <file|url>', 'input video: a file path, - for stdin, an https URL or a generation id')
    .option('--input-audio <file|url>', 'input audio: a file path, - for stdin or an https URL')
    .option('--reference-image <file|url>', 'a reference image (file, -, URL or generation id), repeatable', collect, [])
    .option('--wait', 'wait for the result with a live progress line, then download every output')
    .option('--out <dir>', 'where --wait downloads the outputs (default: the current directory)')
    .option('--no-download', 'with --wait: print the result without downloading')
    .option('--idempotency-key <key>', 'resend an interrupted submit without a second charge (printed by every submit)')
    .action(
      run(async (slug: string | undefined, options) => {
        if (slug !== undefined && options.model !== undefined && slug !== options.model)
          throw new UsageError(`Give the model once: "${slug}" or --model, not both.`);
        return generateCommand({ ...options, model: options.model ?? slug }, io);
      }),
    );

  withService(program.command('wait').description('follow a generation to the end and download its outputs'))
    .argument('<id>', 'generation id')
    .option('--out <dir>', 'where to download the outputs (default: the current directory)')
    .option('--no-download', 'print the result without downloading')
    .action(run(async (id: string, options) => waitCommand(id, options, io)));

  withService(
    program
      .command('batch')
      .description('run a JSON Lines file of requests: the total price first, then within the account limits, with progress and downloads'),
  )
    .argument('<jobs.jsonl>', 'one JSON object of generate params per line, e.g. {"model":"image-fast","prompt":"a cat"}')
    .option('--out <dir>', 'where the outputs, results.jsonl and the state for --resume go (required)')
    .option('--yes', 'do not ask before spending (required when stdin is not a terminal)')
    .option('--resume', 'carry on a batch stopped by Ctrl-C or a kill: nothing is billed or downloaded twice')
    .action(run(async (file: string, options) => batchCommand(file, options, io)));

  withService(program.command('get').description('a generation as it stands now'))
    .argument('<id>', 'generation id')
    .action(run(async (id: string, options) => void (await getCommand(id, options, io))));

  withService(program.command('credits').description('balance, cycle and limits of the account')).action(
    run(async (options) => void (await creditsCommand(options, io))),
  );

  program
    .command('emulator')
    .description('start the local emulator (every endpoint, state, error and webhook of the service)')
    .option('--port <port>', 'port, 0 for a free one', '4010')
    .option('--host <host>', 'interface', '127.0.0.1')
    .option('--config <file>', 'emulator config JSON (accounts, keys, allowlists, webhooks)')
    .option('--public-url <url>', 'the address output links name (--host 0.0.0.0, a container)')
    .option('--allow-loopback-inputs', 'fetch input links on loopback, http too (local development; the real service never would)')
    .action(run(async (options) => emulatorCommand(options, io)));

  withService(program.command('types').description("write a .d.ts typing each model's params from this account's list"), false)
    .option('--out <file>', 'declaration file', DEFAULT_TYPES_FILE)
    .option('--check', 'exit 1 when the file differs from what the live list gives (for CI)')
    .action(run(async (options) => typesCommand(options, io)));

  return program;
}

/** Runs one command line; resolves with the exit code. */
export async function runCli(argv: readonly string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // Known before anything is parsed or printed: the key from the environment, and one given by
  // flag (a parse error can echo the command line).
  io.addSecret(env.MEDIAGEN_API_KEY);
  for (const [index, arg] of argv.entries()) {
    if (arg === '--api-key') io.addSecret(argv[index + 1]);
    else if (arg.startsWith('--api-key=')) io.addSecret(arg.slice('--api-key='.length));
  }
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => (code = c));
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    // Commander already printed its message (unknown option, missing argument, --help).
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    reportError(io, error);
    return exitCodeFor(error);
  }
  return code;
}

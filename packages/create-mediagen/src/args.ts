export interface Args {
  dir?: string;
  template?: string;
  help: boolean;
}

/**
 * `[dir] [--template|-t <name>] [--help|-h]`; `--template=<name>` too. Unknown flags are refused.
 * A bare `--` is skipped: `npm create mediagen app -- --template next` reaches us without it, but
 * other package managers pass it through, and the options after it are still meant as options.
 */
export function parseArgs(argv: readonly string[]): Args {
  const args: Args = { help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') continue;
    if (arg === '--help' || arg === '-h') args.help = true;
    else if (arg === '--template' || arg === '-t') {
      const value = argv[++i];
      if (value === undefined || value.startsWith('-')) throw new Error(`${arg} needs a template name.`);
      args.template = value;
    } else if (arg.startsWith('--template=')) args.template = arg.slice('--template='.length);
    else if (arg.startsWith('-')) throw new Error(`Unknown option ${arg}.`);
    else if (args.dir === undefined) args.dir = arg;
    else throw new Error(`One folder only (got "${args.dir}" and "${arg}").`);
  }
  return args;
}

import { createInterface } from 'node:readline/promises';
import { parseArgs } from './args';
import { CreateError, createApp, shellQuote } from './create';
import { availableTemplates } from './templates';

const USAGE = (templates: string[]) => `Usage: npm create mediagen@latest <dir> -- --template ${templates.join('|')}

Writes a MediaGen sample app into <dir> (a new or empty folder) as a standalone npm project
that runs against the local emulator with no account.

Exit codes: 0 written, 1 refused (folder not new or empty, unknown template, could not write;
nothing is left behind), 2 usage, 130 cancelled at a prompt, 70 a bug in create-mediagen.`;

/** Ctrl-D (end of input) at a prompt: the user backed out. */
class Cancelled extends Error {}

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  // End of input (Ctrl-D on an empty line, a closed pipe) closes the interface without an answer.
  const closed = new Promise<never>((_resolve, reject) => rl.once('close', () => reject(new Cancelled())));
  closed.catch(() => {});
  try {
    return (await Promise.race([rl.question(question), closed])).trim();
  } catch (error) {
    if (error instanceof Cancelled || (error as Error | undefined)?.name === 'AbortError') throw new Cancelled();
    throw error;
  } finally {
    rl.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const templates = availableTemplates();
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(argv);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE(templates)}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE(templates));
    return 0;
  }
  // Asked only when a person is there to answer; a script gets the usage instead of a hang.
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  let dir: string;
  let template: string;
  try {
    dir = args.dir ?? (interactive ? await ask('Folder for the new app: ') : '');
    template = args.template ?? (interactive ? await ask(`Template (${templates.join(', ')}): `) : '');
  } catch (error) {
    if (!(error instanceof Cancelled)) throw error;
    console.error('\nCancelled: nothing was written.');
    return 130;
  }
  if (!dir || !template) {
    console.error(`${!dir ? 'No folder given.' : 'No template given.'}\n\n${USAGE(templates)}`);
    return 2;
  }
  try {
    const app = createApp({ template, dir });
    console.log(`Wrote the ${template} app "${app.name}" to ${app.dir}. Next:

  cd ${shellQuote(dir)}
  npm install
  npm run build
  MEDIAGEN_WEBHOOK_URL=http://127.0.0.1:3000/api/webhooks/mediagen npx -p @mediagen/emulator mediagen-emulator   # another terminal
  PORT=3000 npm start

Against the real service, set MEDIAGEN_API_KEY, MEDIAGEN_BASE_URL and MEDIAGEN_WEBHOOK_SECRET.`);
    return 0;
  } catch (error) {
    if (error instanceof CreateError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 70;
  },
);

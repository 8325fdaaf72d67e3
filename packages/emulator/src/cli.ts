#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { DEFAULT_KEY } from './index.js';
import { SERVE_FLAGS, ServeError, serveFromFlags } from './serve.js';

const HELP = `mediagen-emulator: a local copy of the MediaGen service (also: mediagen emulator)

Usage: mediagen-emulator [options]
${Object.values(SERVE_FLAGS)
  .map((line) => `  ${line}`)
  .join('\n')}

Without --config: one pro account (acct_demo, 15,000 credits), key ${DEFAULT_KEY},
every model allowed; webhooks go to MEDIAGEN_WEBHOOK_URL signed with MEDIAGEN_WEBHOOK_SECRET.
Test-only controls live under /__emulator/* and answer only on loopback.`;

async function main(): Promise<void> {
  let values: { port?: string; host?: string; config?: string; 'public-url'?: string; 'allow-loopback-inputs'?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', short: 'p' },
        host: { type: 'string' },
        config: { type: 'string', short: 'c' },
        'public-url': { type: 'string' },
        'allow-loopback-inputs': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${HELP}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(HELP);
    return;
  }
  try {
    const emu = await serveFromFlags({
      port: values.port,
      host: values.host,
      config: values.config,
      publicUrl: values['public-url'],
      allowLoopbackInputs: values['allow-loopback-inputs'],
    });
    const links = emu.url === emu.listening ? '' : `, links name ${emu.url}`;
    console.log(
      `mediagen-emulator listening on ${emu.listening}${links}${values.config ? ` (config ${values.config})` : ` (key ${DEFAULT_KEY})`}`,
    );
    const stop = () => {
      void emu.close().finally(() => process.exit(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (e) {
    if (!(e instanceof ServeError)) throw e;
    console.error(e.message);
    process.exit(e.kind === 'usage' ? 2 : 1);
  }
}

void main();

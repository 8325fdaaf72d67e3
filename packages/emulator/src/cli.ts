#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, DEFAULT_KEY, startEmulator } from './index.js';

const HELP = `mediagen-emulator: a local copy of the MediaGen service

Usage: mediagen-emulator [--port 4010] [--host 127.0.0.1] [--config emulator.json] [--public-url http://host:4010]

--public-url: the address output links name, when clients reach the emulator by another
name than the one it listens on (with --host 0.0.0.0, in a container).

Without --config: one pro account (acct_demo, 15,000 credits), key ${DEFAULT_KEY},
every model allowed; webhooks go to MEDIAGEN_WEBHOOK_URL signed with MEDIAGEN_WEBHOOK_SECRET.
Test-only controls live under /__emulator/* and answer only on loopback.`;

async function main(): Promise<void> {
  let values: { port?: string; host?: string; config?: string; 'public-url'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', short: 'p' },
        host: { type: 'string' },
        config: { type: 'string', short: 'c' },
        'public-url': { type: 'string' },
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
  const port = values.port === undefined ? 4010 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number, got ${values.port}`);
    process.exit(2);
  }
  try {
    const emu = await startEmulator({
      port,
      host: values.host ?? '127.0.0.1',
      ...(values.config ? { config: values.config } : {}),
      ...(values['public-url'] ? { publicUrl: values['public-url'] } : {}),
    });
    console.log(`mediagen-emulator listening on ${emu.url}${values.config ? ` (config ${values.config})` : ` (key ${DEFAULT_KEY})`}`);
    const stop = () => {
      void emu.close().finally(() => process.exit(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(1);
    }
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL') {
      console.error(`mediagen-emulator cannot listen on ${values.host ?? '127.0.0.1'}:${port}: ${err.code}`);
      process.exit(1);
    }
    throw e;
  }
}

void main();

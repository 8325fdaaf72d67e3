import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** Debian's Chromium, never skipped: without it the test fails (`node scripts/ensure-services.mjs`, run by the root `pnpm test`, installs it). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run \`node scripts/ensure-services.mjs\` from the repo root (it apt-installs chromium).`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

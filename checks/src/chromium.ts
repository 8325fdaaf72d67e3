import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium, which the test command installs when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Headless, and quiet on the network: without the background-networking flags Chromium opens
 * connections this machine's closed network refuses, many at a time.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium for a release check's pages; says how to get it when it is missing. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install it with "apt-get install -y chromium" (in the monorepo, pnpm test does it).`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

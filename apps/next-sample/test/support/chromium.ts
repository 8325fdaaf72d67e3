import { existsSync } from 'node:fs';

/** Debian's Chromium (playwright-core drives it; Playwright's own browser download cannot work on a closed network). */
export const CHROMIUM = '/usr/bin/chromium';
export const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** Never skipped: without the browser a browser test fails, in CI too. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run \`node scripts/ensure-services.mjs\` from the repo root (it apt-installs chromium).`);
}
